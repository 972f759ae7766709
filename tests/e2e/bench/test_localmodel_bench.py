"""bench/localmodel (issue 12's chore harness) end to end against the scripted server, without a model.

A scripted run that really solves a chore through tool calls is judged solved; one that answers with
an invented value (or claims a change it never made) is not. Every chore's fixture builds, and no
checker passes the untouched fixture with an empty answer.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import AXON_SCRIPT
from tests.fakeserver import Reply, ScriptedServer, text_reply, tool_reply

BENCH = Path(__file__).resolve().parents[3] / "bench" / "localmodel"
sys.path.insert(0, str(BENCH))

import chores  # noqa: E402
import chores_run  # noqa: E402

_spec = importlib.util.spec_from_file_location("localbench_run", BENCH / "run.py")
assert _spec and _spec.loader
lb_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lb_run)


def call(tool: str, /, **args: object) -> str:
    return "<tool_call>\n" + json.dumps({"name": tool, "arguments": args}) + "\n</tool_call>"


SOLVE: dict[str, tuple[str, list[Reply]]] = {
    "ask_ini_value": ("native", [tool_reply(("read_file", {"path": "service/settings.ini"})),
                                 text_reply("timeout_ms is 7341 in service/settings.ini.")]),
    "edit_port": ("text", [text_reply(call("read_file", path="server.cfg")),
                           text_reply(call("edit_file", path="server.cfg", old_string="port = 8080",
                                           new_string="port = 9417")),
                           text_reply("Done: server.cfg now has port = 9417.")]),
    "run_script_report": ("none", [tool_reply(("bash", {"command": "python3 tools/checksum.py"})),
                                   text_reply(f"The script prints {chores_run.CHECKSUM}.")]),
}
# The first invented answer gets axon's one reminder (look first / nothing was changed / not done
# yet); the model insists.
INVENT: dict[str, tuple[str, list[Reply]]] = {
    # the named files arrive with the task (guidance's attach part), so nothing reminds the model to look
    "ask_ini_value": ("native", [text_reply("timeout_ms is 5000.")]),
    "edit_port": ("text", [text_reply("I changed the port in server.cfg to 9417.")] * 4),   # claim, undone,
                                                                                  # server.cfg unchanged
    "run_script_report": ("none", [tool_reply(("bash", {"command": "echo skipped"})),
                                   text_reply("The script prints 4821."),   # a number no result shows:
                                   text_reply("It prints 4821.")]),         # sent back once
}


def bench(tmp_path: Path, name: str, config: str, replies: list[Reply],
          timeout: float = 60) -> tuple[dict, ScriptedServer]:
    if not AXON_SCRIPT.exists():
        pytest.skip("no axon executable beside this python")
    out = tmp_path / "results.json"
    with ScriptedServer(replies) as server:
        code = lb_run.main(["--base-url", server.url, "--model", "qwen2.5-coder-1.5b", "--config", config,
                            "--reps", "1", "--only", name, "--max-turns", "5", "--timeout", str(timeout),
                            "--out", str(out), "--axon", str(AXON_SCRIPT)])
    assert code == 0
    data = json.loads(out.read_text())
    assert [r["chore"] for r in data["runs"]] == [name]
    return data, server


@pytest.mark.parametrize("name", sorted(SOLVE))
def test_scripted_solution_is_solved(tmp_path: Path, name: str) -> None:
    config, replies = SOLVE[name]
    data, server = bench(tmp_path, name, config, replies)
    run = data["runs"][0]
    assert run["solved"], run
    assert (run["exit_code"], run["turns"], run["is_error"], run["error"]) == (0, len(replies), False, "")
    assert data["summary"][config]["per_rep"] == [1]
    first = server.requests[0].body
    # no config file: a loopback endpoint gets axon's local defaults; a project config applies in an
    # untrusted folder (it has no widening keys); only `text` sends no native tool list
    assert (first.get("temperature"), first.get("max_tokens")) == (0.2, 1024)
    assert bool(first.get("tools")) == (config != "text")


@pytest.mark.parametrize("name", sorted(INVENT))
def test_invented_answer_is_not_solved(tmp_path: Path, name: str) -> None:
    config, replies = INVENT[name]
    data, _ = bench(tmp_path, name, config, replies)
    run = data["runs"][0]
    assert not run["solved"], run
    assert run["exit_code"] == 0 and run["turns"] == len(replies)
    assert data["summary"][config]["per_rep"] == [0]


def test_chore_set_shape() -> None:
    kinds = [c.kind for c in chores.CHORES]
    assert len(chores.CHORES) >= 33 and set(kinds) == set(chores.KINDS)
    assert all(kinds.count(k) >= 3 for k in chores.KINDS)
    assert all(1 <= c.steps <= 3 for c in chores.CHORES)


@pytest.mark.parametrize("chore", chores.CHORES, ids=lambda c: c.name)
def test_fixture_builds_and_doing_nothing_is_not_solved(tmp_path: Path, chore: chores.Chore) -> None:
    root = tmp_path / "proj"
    chores.build_fixture(chore, root)
    assert (root / ".git").is_dir()
    files = chores.read_project(root)
    assert files == chore.files
    assert not chore.check(files, "")
    assert not chore.check(files, "Done.")


def _sub(path: str, old: str, new: str) -> Callable[[dict[str, str]], dict[str, str]]:
    return lambda f: {**f, path: f[path].replace(old, new, 1)}


def _add(path: str, text: str) -> Callable[[dict[str, str]], dict[str, str]]:
    return lambda f: {**f, path: text}


def _drop(path: str) -> Callable[[dict[str, str]], dict[str, str]]:
    return lambda f: {k: v for k, v in f.items() if k != path}


def _same(f: dict[str, str]) -> dict[str, str]:
    return f


def _mv(old: str, new: str) -> Callable[[dict[str, str]], dict[str, str]]:
    """Move the file ``old`` (or every file under the folder ``old/``) to ``new``."""
    def move(f: dict[str, str]) -> dict[str, str]:
        if old in f:
            return {(new if k == old else k): v for k, v in f.items()}
        return {(new + k[len(old):] if k.startswith(old + "/") else k): v for k, v in f.items()}
    return move


def _all(*changes: Callable[[dict[str, str]], dict[str, str]]) -> Callable[[dict[str, str]], dict[str, str]]:
    def apply(f: dict[str, str]) -> dict[str, str]:
        for change in changes:
            f = change(f)
        return f
    return apply


def _everywhere(paths: tuple[str, ...], old: str, new: str) -> Callable[[dict[str, str]], dict[str, str]]:
    return lambda f: {k: (v.replace(old, new) if k in paths else v) for k, v in f.items()}


# A hand-made correct outcome per chore (files after, answer): every chore can be solved.
REFERENCE: dict[str, tuple[Callable[[dict[str, str]], dict[str, str]], str]] = {
    "ask_ini_value": (_same, "It is 7341."),
    "ask_pyproject_version": (_same, "Version 3.18.29."),
    "ask_json_value": (_same, "max_upload_mb is 613"),
    "ask_which_file_function": (_same, "It is defined in src/billing/ledger.py."),
    "ask_which_file_class": (_same, "`lib/quota_store.py`"),
    "ask_which_file_constant": (_same, "pkg/net/policy.py defines it (95)."),
    "ask_count_functions": (_same, "There are 9 functions."),
    "ask_count_todos": (_same, "6 TODO comments."),
    "ask_count_csv_rows": (_same, "23 orders."),
    "edit_port": (_sub("server.cfg", "port = 8080", "port = 9417"), "done"),
    "edit_typo": (_sub("docs/intro.md", "Welcom ", "Welcome "), "Fixed Welcom -> Welcome."),
    "edit_constant": (_sub("app/limits.py", "MAX_RETRIES = 3", "MAX_RETRIES = 12"), "done"),
    "edit_yaml_value": (_sub("deploy.yaml", "log_level: debug", "log_level: warning"), "done"),
    "edit_fix_subtract": (_sub("mathx/ops.py", "int:\n    return a + b\n\n\ndef mul",
                               "int:\n    return a - b\n\n\ndef mul"), "fixed"),
    "edit_add_requirement": (_sub("requirements.txt", "tomli==2.0.1\n", "tomli==2.0.1\ncachetools==5.3.3\n"), "ok"),
    "create_notes": (_add("NOTES.txt", "deploy window is Thursday 14:30\n"), "created"),
    "create_gitignore": (_add(".gitignore", "build/\n*.log\n"), "created"),
    "create_greet_module": (_add("greet.py", "def greet(name):\n    return f'Hello, {name}!'\n"), "created"),
    "create_from_config": (_add("dbname.txt", "orchid_ledger_42\n"), "written"),
    "delete_file": (_drop("old_notes.txt"), "deleted"),
    "delete_in_dir": (_drop("scratch/tmp_4471.json"), "deleted"),
    "delete_by_content": (_drop("fixtures/charlie.json"), "deleted fixtures/charlie.json"),
    "run_script_report": (_same, f"It printed {chores_run.CHECKSUM}"),
    "run_tests_which_fails": (_same, "test_kelvin_offset_roundtrip fails (21.65 != 21.5)."),
    "run_tests_count": (_same, "Ran 11 tests, all OK."),
    "run_and_save": (_add("token.txt", chores_run.TOKEN + "\n"), "saved"),
    "run_check_then_fix": (_sub("app.ini", "workers = 64", "workers = 16"), "now prints OK"),
    "move_rename_file": (_mv("draft_plan.txt", "plan.txt"), "renamed"),
    "move_into_folder": (_mv("csvtools.py", "lib/csvtools.py"), "moved"),
    "move_folder": (_mv("img", "images"), "renamed img/ to images/"),
    "multi_rename_function": (_everywhere(("totals.py", "cart.py", "receipt.py"), "get_total", "compute_total"),
                              "renamed in 3 files"),
    "multi_constant_and_test": (_all(_sub("paging.py", "PAGE_LIMIT = 50", "PAGE_LIMIT = 75"),
                                     _sub("test_paging.py", "(PAGE_LIMIT, 50)", "(PAGE_LIMIT, 75)")), "done"),
    "multi_rename_config_key": (_everywhere(("mail.ini", "mailer.py"), "smtp_server", "smtp_host"), "done"),
}


@pytest.mark.parametrize("chore", chores.CHORES, ids=lambda c: c.name)
def test_reference_outcome_is_solved(chore: chores.Chore) -> None:
    change, answer = REFERENCE[chore.name]
    after = change(dict(chore.files))
    assert after != chore.files or answer
    assert chore.check(after, answer)


def test_a_hung_run_is_killed_and_recorded(tmp_path: Path) -> None:
    data, _ = bench(tmp_path, "ask_ini_value", "text", [Reply(content="late", hang=30)], timeout=3)
    run = data["runs"][0]
    assert run["timed_out"] and not run["solved"] and run["turns"] is None and run["seconds"] < 25
    assert data["summary"]["text"]["timed_out"] == 1


def _results(commit: str, reps: dict[str, list[bool]], chores_: list[str]) -> dict:
    runs = [{"config": config, "rep": rep, "chore": name, "kind": "ask", "solved": solved, "turns": 2,
             "seconds": 1.0, "timed_out": False}
            for config, outcomes in reps.items()
            for rep, solved in enumerate(outcomes, 1) for name in chores_]
    return {"meta": {"commit": commit, "started": f"start-{commit}", "chores": chores_}, "runs": runs}


def test_merge_renumbers_repetitions_per_config_and_keeps_each_commit() -> None:
    import merge

    first = _results("aaa", {"text": [True, False]}, ["c1", "c2"])
    second = _results("bbb", {"text": [True], "native": [False, True]}, ["c1", "c2"])
    merged = merge.merge([first, second])
    assert merged["summary"]["text"]["per_rep"] == [2, 0, 2]
    assert merged["summary"]["native"]["per_rep"] == [0, 2]
    assert merged["meta"]["commits"] == ["aaa", "bbb"] and merged["meta"]["reps"] == 3
    assert {r["commit"] for r in merged["runs"] if r["rep"] == 3} == {"bbb"}
    with pytest.raises(ValueError, match="different chores"):
        merge.merge([first, _results("ccc", {"text": [True]}, ["c1"])])
    with pytest.raises(ValueError, match="merging it twice"):
        merge.merge([merged, second])       # the merged file already holds the second part


@pytest.mark.parametrize("config", ["none", "without-attach", "without-parts"])
def test_an_ablation_leaves_out_its_part_and_tokens_per_solved_chore_come_from_the_servers_usage(
        tmp_path: Path, config: str) -> None:
    replies = [tool_reply(("read_file", {"path": "server.cfg"})),
               tool_reply(("edit_file", {"path": "server.cfg", "old_string": "port = 8080", "new_string": "port = 9417"})),
               text_reply("Done: server.cfg now has port = 9417.")]
    data, server = bench(tmp_path, "edit_port", config, replies)
    assert data["runs"][0]["solved"], data["runs"][0]
    first = server.requests[0]
    task = next(m["content"] for m in first.conversation if m["role"] == "user")
    assert ('<file path="server.cfg">' in task) == (config == "none")          # the attach part
    assert ("response_format" in first.body) == (config != "without-parts")  # the constrain part
    usage = data["runs"][0]["usage"]
    assert usage["total_tokens"] > 0
    assert data["summary"][config]["tokens_per_solved"] == usage["total_tokens"]
