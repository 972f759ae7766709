"""Plan mode end to end through the real ``axon run``: a scripted model tries every way to write
(file tools, rm, a redirection, python, sed -i, a file outside the project) and then answers with
a plan; every file stays byte-identical, no file appears, the canary outside the project is
untouched, stdout is the plan and the exit code 0. A project's ``mode = "plan"`` applies in a folder
never trusted (it narrows)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakeserver import text_reply, tool_reply

PLAN = "PLAN:\n1. Edit a.txt: replace old with new.\n2. Run the tests."


def _attempts(canary: Path) -> list[tuple[str, dict[str, str]]]:
    return [("write_file", {"path": "new.txt", "content": "x\n"}),
            ("write_file", {"path": str(canary), "content": "pwned\n"}),
            ("edit_file", {"path": "a.txt", "old_string": "old", "new_string": "new"}),
            ("bash", {"command": "rm a.txt"}),
            ("bash", {"command": "echo x > b.txt"}),
            ("bash", {"command": "echo x > f"}),
            ("bash", {"command": "python3 -c 'open(\"g\",\"w\").write(\"1\")'"}),
            ("bash", {"command": "sed -i s/old/new/ a.txt"}),
            ("bash", {"command": f"echo pwned > {canary}"}),
            ("todo_write", {"todos": [{"content": "plan the change", "status": "in_progress"}]})]


def _plant(project: Path) -> tuple[dict[str, bytes], Path]:
    (project / "a.txt").write_text("old\n")
    (project / "b.txt").write_text("keep\n")
    (project / "sub").mkdir()
    (project / "sub" / "c.py").write_text("print('c')\n")
    canary = project.parent / "canary.txt"
    canary.write_text("canary\n")
    return _files(project), canary


def _files(project: Path) -> dict[str, bytes]:
    return {str(p.relative_to(project)): p.read_bytes() for p in sorted(project.rglob("*"))
            if p.is_file() and ".axon" not in p.parts and ".git" not in p.parts}


def _check(project: Path, before: dict[str, bytes], canary: Path, server, stdout: str) -> None:
    assert _files(project) == before                         # byte-identical, and no new file
    assert canary.read_text() == "canary\n"
    assert PLAN in stdout
    results = {m["tool_call_id"]: m["content"] for m in server.requests[1].messages if m["role"] == "tool"}
    assert len(results) == 10
    denied = [c for c in results.values() if c.startswith("Permission denied")]
    assert len(denied) == 9 and all("plan mode" in c for c in denied), results    # the todo list ran


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_plan_mode_changes_nothing_even_when_the_model_tries_to_write(server, run_axon, project: Path,
                                                                      sandbox: str) -> None:
    before, canary = _plant(project)
    server.add(tool_reply(*_attempts(canary)), text_reply(PLAN))
    r = run_axon("run", "--mode", "plan", "--sandbox", sandbox, "--yes", "change old to new")   # --yes: no ask to deny
    assert r.code == 0, r.stderr
    _check(project, before, canary, server, r.stdout)
    system = server.requests[0].messages[0]["content"]
    assert "You are in plan mode" in system


def test_plan_mode_json_output_is_the_plan(server, run_axon, project: Path) -> None:
    before, canary = _plant(project)
    server.add(tool_reply(*_attempts(canary)), text_reply(PLAN))
    r = run_axon("run", "--mode", "plan", "--output-format", "json", "change old to new")
    assert r.code == 0, r.stderr
    result = json.loads(r.stdout)
    assert result["result"] == PLAN and result["is_error"] is False
    _check(project, before, canary, server, result["result"])


def test_a_project_plan_mode_applies_in_a_folder_never_trusted(server, run_axon, project: Path) -> None:
    before, canary = _plant(project)
    (project / ".axon").mkdir()
    (project / ".axon" / "permissions.toml").write_text('mode = "plan"\n')
    server.add(tool_reply(*_attempts(canary)), text_reply(PLAN))
    r = run_axon("run", "--yes", "change old to new")      # --yes approves what asks: plan denies before that
    assert r.code == 0, r.stderr
    _check(project, before, canary, server, r.stdout)
