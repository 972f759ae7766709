"""Issue 11 end to end: the real ``axon run``/``axon undo`` against the scripted server — shell effects
undone, "sandboxed, undoable" commands that run without a prompt, and the ones that still ask."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakeserver import text_reply, tool_reply
from tests.sandbox.test_sandbox import needs_namespaces


def _events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def _decisions(stdout: str) -> list[tuple[str, str]]:
    return [(e["decision"], e["reason"]) for e in _events(stdout) if e["type"] == "permission_decision"]


def _session(stdout: str) -> str:
    return next(e["session_id"] for e in _events(stdout) if e["type"] == "session_started")


@needs_namespaces
def test_a_shell_turn_runs_without_a_prompt_and_axon_undo_reverts_it(server, run_axon, project: Path) -> None:
    (project / "a.txt").write_text("1\n")
    (project / "b.txt").write_text("1\n")
    server.add(tool_reply(("bash", {"command": "rm a.txt; echo x > new.txt; sed -i s/1/2/ b.txt"})),
               text_reply("tidied"))
    r = run_axon("run", "tidy up", "--output-format", "stream-json", "--mode", "auto")        # no --yes
    assert r.code == 0, r.stderr
    assert _decisions(r.stdout) == [("allow", "sandboxed, undoable")]
    assert not (project / "a.txt").exists() and (project / "new.txt").read_text() == "x\n"
    assert (project / "b.txt").read_text() == "2\n"
    session = _session(r.stdout)

    listed = run_axon("undo", "--list")
    assert listed.code == 0 and f"session {session} turn 1: tidy up" in listed.stdout
    assert "3 file(s): a.txt, b.txt, new.txt" in listed.stdout
    r = run_axon("undo")
    assert r.code == 0, r.stderr
    assert r.stdout.splitlines() == [f"undo of turn 1 of session {session}:", "  restored a.txt",
                                     "  restored b.txt", "  deleted new.txt (created in that turn)"]
    assert (project / "a.txt").read_text() == "1\n" and (project / "b.txt").read_text() == "1\n"
    assert not (project / "new.txt").exists()
    assert run_axon("undo").stdout.startswith("nothing to undo")

    server.add(text_reply("noted"))                  # the session hears about it when continued
    assert run_axon("run", "--continue", "what now?").code == 0
    note = server.requests[-1].messages[-2]["content"]
    assert note.startswith("[axon: the user undid your changes of the last turn: restored a.txt;")


def test_undo_refuses_a_file_someone_changed_after_the_turn(server, run_axon, project: Path) -> None:
    (project / "a.txt").write_text("a1\n")
    (project / "b.txt").write_text("b1\n")
    server.add(tool_reply(("bash", {"command": "echo a2 > a.txt; echo b2 > b.txt"})), text_reply("done"))
    assert run_axon("run", "change", "--yes", "--sandbox", "off").code == 0
    (project / "b.txt").write_text("the user's edit\n")
    r = run_axon("undo")
    assert r.code == 0, r.stderr
    assert r.stdout.splitlines()[1:] == ["  restored a.txt", "  skipped b.txt: changed after that turn (left as it is)"]
    assert (project / "a.txt").read_text() == "a1\n" and (project / "b.txt").read_text() == "the user's edit\n"


def test_undo_n_turns_and_bad_input(server, run_axon, project: Path) -> None:
    server.add(tool_reply(("bash", {"command": "echo 1 > f.txt"})), text_reply("one"),
               tool_reply(("write_file", {"path": "g.txt", "content": "g\n"})), text_reply("two"))
    assert run_axon("run", "first", "--yes", "--sandbox", "off").code == 0
    assert run_axon("run", "second", "--yes", "--sandbox", "off").code == 0
    listed = run_axon("undo", "--list").stdout.splitlines()
    assert listed[0].endswith("turn 1: second") and listed[2].endswith("turn 1: first")
    r = run_axon("undo", "2")
    assert r.code == 0 and not (project / "f.txt").exists() and not (project / "g.txt").exists()
    bad = run_axon("undo", "zero")
    assert bad.code == 2 and "Traceback" not in bad.stderr


@needs_namespaces
def test_deleting_a_regenerable_ignored_tree_still_asks(server, run_axon, project: Path) -> None:
    (project / ".gitignore").write_text("node_modules/\n")
    (project / "node_modules" / "left-pad").mkdir(parents=True)
    (project / "node_modules" / "left-pad" / "index.js").write_text("module.exports = 1\n")
    server.add(tool_reply(("bash", {"command": "rm -rf node_modules"})), text_reply("ok"))
    r = run_axon("run", "clean", "--output-format", "stream-json", "--mode", "auto")   # even in auto
    assert r.code == 0, r.stderr
    ((decision, reason),) = _decisions(r.stdout)
    assert decision == "ask" and "node_modules is a regenerable directory" in reason
    assert (project / "node_modules" / "left-pad" / "index.js").read_text() == "module.exports = 1\n"
    assert server.requests[1].messages[-1]["content"].startswith("Permission denied: the user did not approve")


@needs_namespaces
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_builds_run_without_a_prompt_and_reaching_out_still_asks(server, run_axon, project: Path) -> None:
    (project / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    (project / "Makefile").write_text("all:\n\techo built > built.txt\n")
    (project / "script.py").write_text("open('out.txt', 'w').write('written by the script')\n")
    outside = project.parent / "outside.txt"
    server.add(tool_reply(("bash", {"command": "pytest -q -p no:cacheprovider"}), ("bash", {"command": "make"}),
                          ("bash", {"command": "python script.py"})),
               tool_reply(("bash", {"command": "curl -s http://127.0.0.1:9/"}),
                          ("bash", {"command": "git push origin main"}),
                          ("bash", {"command": f"echo x > {outside}"})),
               text_reply("done"))
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    r = run_axon("run", "build", "--output-format", "stream-json", env={"PATH": path})
    assert r.code == 0, r.stderr
    decisions = _decisions(r.stdout)
    assert decisions[:3] == [("allow", "sandboxed, undoable")] * 3
    assert [d for d, _ in decisions[3:]] == ["ask", "ask", "ask"]
    assert "curl needs the network" in decisions[3][1] and "git push" in decisions[4][1]
    assert decisions[5][1] == f"outside the project ({outside})"
    results = [m["content"] for m in server.requests[1].messages if m["role"] == "tool"]
    assert "1 passed" in results[0] and results[0].endswith("exit code 0")
    assert (project / "built.txt").read_text() == "built\n"
    assert (project / "out.txt").read_text() == "written by the script"
    assert not outside.exists()


def test_undo_without_git_is_one_line(run_axon) -> None:
    r = run_axon("undo", env={"PATH": str(Path(sys.executable).parent)})
    assert (r.code, r.stderr.strip()) == (1, "axon: error: undo is not available: git is not installed")
