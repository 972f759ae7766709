"""End-to-end: Python tools (``.axon/tools/*.py`` with ``@tool``) called by the model through the real
``axon run``: validated, permission-checked by their ``risk``, audited, listed by ``axon tools``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakeserver import text_reply, tool_reply

TRUSTED = {"AXON_TRUST": "1"}

TOOLS = '''
from typing import Literal

from axon_cli import tool


@tool(risk="read")
def count_words(path: str, unit: Literal["words", "lines"] = "words") -> str:
    """Count the words or lines of a project file.

    Args:
        path: the file, relative to the project root.
        unit: what to count.
    """
    with open(path) as fh:
        text = fh.read()
    n = len(text.split()) if unit == "words" else len(text.splitlines())
    return f"{n} {unit} in {path}"


@tool(risk="destructive")
def wipe(name: str) -> str:
    """Delete a named cache.

    Args:
        name: the cache to delete.
    """
    open("wiped-" + name, "w").close()
    return "wiped " + name


@tool(risk="edit", timeout=5)
def stamp(path: str, text: str) -> str:
    """Append a stamp line to a file.

    Args:
        path: the file to stamp.
        text: the stamp.
    """
    with open(path, "a") as fh:
        fh.write(text + "\\n")
    return "stamped"
'''


def write_tools(project: Path, name: str = "mine.py", text: str = TOOLS) -> None:
    folder = project / ".axon" / "tools"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)


def tool_results(request) -> list[str]:
    return [m["content"] for m in request.messages if m["role"] == "tool"]


def test_a_python_tool_is_validated_called_and_asks_by_its_risk(server, run_axon, project):
    write_tools(project)
    (project / "notes.txt").write_text("one two three\n")
    server.add(tool_reply(("count_words", {"path": "notes.txt", "unit": "chars"})),
               tool_reply(("count_words", {"path": "notes.txt"})),
               tool_reply(("wipe", {"name": "build"})),
               tool_reply(("stamp", {"path": "notes.txt", "text": "seen"})),
               text_reply("done"))
    ran = run_axon("run", "count the words", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    first = server.requests[0]
    assert {"count_words", "wipe", "stamp"} <= set(first.tool_names)
    schema = next(t["function"] for t in first.body["tools"] if t["function"]["name"] == "count_words")
    assert schema["description"] == "Count the words or lines of a project file."
    assert schema["parameters"]["properties"]["unit"] == {
        "default": "words", "description": "what to count.", "enum": ["words", "lines"], "type": "string"}
    bad, good, destructive, edit = tool_results(server.requests[4])
    assert bad.startswith("Error: 1 validation error in the arguments of count_words")
    assert "unit" in bad and "Fix the arguments" in bad
    assert good == "3 words in notes.txt"
    assert destructive.startswith("Permission denied") and "non-interactive" in destructive   # it asked
    assert edit.startswith("Permission denied") and "non-interactive" in edit
    assert not (project / "wiped-build").exists() and "seen" not in (project / "notes.txt").read_text()
    audit = [json.loads(line) for line in (project / ".axon" / "audit.jsonl").read_text().splitlines()]
    assert [(r["tool"], r["decision"]) for r in audit] == [
        ("count_words", "n/a"), ("count_words", "allow"), ("wipe", "deny"), ("stamp", "deny")]


def test_edit_risk_runs_in_accept_edits_and_destructive_still_asks(server, run_axon, project):
    write_tools(project)
    (project / "notes.txt").write_text("x\n")
    server.add(tool_reply(("stamp", {"path": "notes.txt", "text": "seen"}), ("wipe", {"name": "c"})),
               text_reply("done"))
    ran = run_axon("run", "stamp it", "--mode", "accept-edits", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    stamped, wiped = tool_results(server.requests[1])
    assert stamped == "stamped" and (project / "notes.txt").read_text() == "x\nseen\n"
    assert wiped.startswith("Permission denied") and not (project / "wiped-c").exists()


def test_axon_tools_lists_python_tools_with_their_file_and_a_broken_file_is_one_line(run_axon, project):
    write_tools(project)
    write_tools(project, "broken.py", "from axon_cli import tool\n\n@tool(risk='read')\ndef oops(:\n")
    ran = run_axon("tools", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    line = next(ln for ln in ran.stdout.splitlines() if ln.startswith("count_words"))
    assert "Count the words or lines of a project file." in line and "(python: .axon/tools/mine.py)" in line
    assert any(ln.startswith("wipe") for ln in ran.stdout.splitlines())
    problems = [ln for ln in ran.stderr.splitlines() if "broken.py" in ln]
    assert len(problems) == 1 and "SyntaxError" in problems[0] and "skipped" in problems[0]


def test_a_broken_tool_file_is_one_notice_at_start_and_the_session_goes_on(server, run_axon, project):
    write_tools(project)
    write_tools(project, "boom.py", "raise RuntimeError('no database here')\n")
    write_tools(project, "untyped.py", "from axon_cli import tool\n\n@tool\ndef f(x):\n    'Do f.'\n")
    server.add(text_reply("fine"))
    ran = run_axon("run", "hello", env=TRUSTED)
    assert ran.code == 0 and ran.stdout.strip() == "fine"
    notes = [ln for ln in ran.stderr.splitlines() if ln.startswith("note:")]
    assert "note: .axon/tools/boom.py: RuntimeError: no database here; skipped" in notes
    assert any("untyped.py: tool 'f' skipped: parameter 'x' has no type hint" in ln for ln in notes)
    assert "count_words" in server.requests[0].tool_names and "f" not in server.requests[0].tool_names
