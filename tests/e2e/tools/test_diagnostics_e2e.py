"""Diagnostics after edits through the real ``axon run --yes``: the tool result the scripted server
receives carries a problem the edit introduced, and nothing when the edit added none."""

from __future__ import annotations

from pathlib import Path

from tests.fakeserver import text_reply, tool_reply

BODY = "def main():\n    x = 1\n    print('debug')\n    return x\n"


def _tool_results(server) -> list[str]:  # type: ignore[no-untyped-def]
    return [m["content"] for r in server.requests for m in r.messages[-1:] if m["role"] == "tool"]


def _edit_after_read(server, run_axon, edit: dict) -> str:  # type: ignore[no-untyped-def]
    server.add(tool_reply(("read_file", {"path": "app.py"})), tool_reply(("edit_file", edit)), text_reply("done"))
    r = run_axon("run", "go", "--yes")
    assert r.code == 0, r.stderr
    return _tool_results(server)[-1]


def test_mid_line_edit_leaving_an_indentation_error_is_reported_with_its_line(server, run_axon,
                                                                            project: Path) -> None:
    (project / "app.py").write_text(BODY)
    # the example: old_string starts mid-line, so the next line keeps the 4 spaces before it
    result = _edit_after_read(server, run_axon, {"path": "app.py", "old_string": "print('debug')\n",
                                                 "new_string": ""})
    assert (project / "app.py").read_text() == "def main():\n    x = 1\n        return x\n"   # never undone
    assert "diagnostics (python compile)" in result
    assert "app.py:3:" in result and "IndentationError: unexpected indent" in result
    assert "3 |         return x" in result


def test_an_edit_that_keeps_the_file_valid_gets_no_diagnostics(server, run_axon, project: Path) -> None:
    (project / "app.py").write_text(BODY)
    result = _edit_after_read(server, run_axon, {"path": "app.py", "old_string": "    print('debug')\n",
                                                 "new_string": ""})
    assert (project / "app.py").read_text() == "def main():\n    x = 1\n    return x\n"
    assert result.startswith("--- a/app.py") and "diagnostics" not in result


def test_a_file_already_broken_and_equally_broken_after_gets_nothing_new(server, run_axon, project: Path) -> None:
    (project / "app.py").write_text("top = 0\n" + BODY + "def broken(:\n    pass\n")
    result = _edit_after_read(server, run_axon, {"path": "app.py", "old_string": "top = 0\n",
                                                 "new_string": "top = 0\ny = 2\n"})
    assert "y = 2" in (project / "app.py").read_text()
    assert result.startswith("--- a/app.py") and "diagnostics" not in result


def test_a_broken_file_broken_differently_reports_the_new_problem(server, run_axon, project: Path) -> None:
    (project / "app.py").write_text(BODY + "def broken(:\n    pass\n")
    result = _edit_after_read(server, run_axon, {"path": "app.py", "old_string": "    x = 1\n",
                                                 "new_string": "    x = (1\n"})
    assert "diagnostics (python compile)" in result and "app.py:2:" in result


def test_write_file_of_python_with_a_syntax_error(server, run_axon, project: Path) -> None:
    server.add(tool_reply(("write_file", {"path": "new.py", "content": "def f(:\n    return 1\n"}),
                          ("write_file", {"path": "ok.py", "content": "def f():\n    return 1\n"}),
                          ("write_file", {"path": "notes.txt", "content": "def f(:\n"})),
               text_reply("done"))
    r = run_axon("run", "go", "--yes")
    assert r.code == 0, r.stderr
    broken, ok, text = _tool_results_of_batch(server)
    assert (project / "new.py").read_text() == "def f(:\n    return 1\n"
    assert "diagnostics (python compile)" in broken and "new.py:1:7: SyntaxError:" in broken
    assert "1 | def f(:" in broken
    assert ok == "created ok.py, 2 lines" and text == "created notes.txt, 1 lines"


def _tool_results_of_batch(server) -> list[str]:  # type: ignore[no-untyped-def]
    return [m["content"] for m in server.requests[-1].messages if m["role"] == "tool"]
