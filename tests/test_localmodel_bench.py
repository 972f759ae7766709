"""bench/localmodel (issue 12's chore harness) end to end against the scripted server, without a model.

A scripted run that really solves a chore through tool calls is judged solved; one that answers with
an invented value (or claims a change it never made) is not. Every chore's fixture builds, and no
checker passes the untouched fixture with an empty answer.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from tests.conftest import AXON_SCRIPT
from tests.fakeserver import Reply, ScriptedServer, text_reply, tool_reply

BENCH = Path(__file__).resolve().parent.parent / "bench" / "localmodel"
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
INVENT: dict[str, tuple[str, list[Reply]]] = {
    "ask_ini_value": ("native", [text_reply("timeout_ms is 5000.")]),
    "edit_port": ("text", [text_reply("I changed the port in server.cfg to 9417.")]),
    "run_script_report": ("none", [tool_reply(("bash", {"command": "echo skipped"})),
                                   text_reply("The script prints 4821.")]),
}


def bench(tmp_path: Path, name: str, config: str, replies: list[Reply]) -> tuple[dict, ScriptedServer]:
    if not AXON_SCRIPT.exists():
        pytest.skip("no axon executable beside this python")
    out = tmp_path / "results.json"
    with ScriptedServer(replies) as server:
        code = lb_run.main(["--base-url", server.url, "--model", "qwen2.5-coder-1.5b", "--config", config,
                            "--reps", "1", "--only", name, "--max-turns", "5", "--timeout", "60",
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
    if config == "none":       # no config file: axon's defaults (native tools, the endpoint's sampling)
        assert first.get("tools") and "temperature" not in first
    else:                      # the project config applies in an untrusted folder (no widening keys)
        assert (first.get("temperature"), first.get("max_tokens")) == (0.2, 1024)
        assert bool(first.get("tools")) == (config == "native")


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
    assert len(chores.CHORES) >= 26 and set(kinds) == set(chores.KINDS)
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
