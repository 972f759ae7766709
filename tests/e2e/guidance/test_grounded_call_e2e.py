"""A constrained reply may only be a call grounded in what the session has seen (``grounded_call``),
through the real ``axon run`` and the scripted server on 127.0.0.1 (a local endpoint: guidance on):

- an edit only of a file read and unchanged since, its ``old_string`` one of that file's lines that
  occur once in it; no edit of a file not read;
- a read only of a file that exists in the project;
- a tool whose very same call failed twice is left out of the next constrained reply;
- a line whose secret was masked is never offered (the schema goes to the server too).

Asserts are on the request bodies (the schema sent) and on the files on disk."""

from __future__ import annotations

import json
from typing import Any

from tests.fakeserver import Recorded, text_reply, tool_reply


def call_json(name: str, args: dict[str, Any]) -> str:
    return json.dumps({"name": name, "arguments": args})


def branches(request: Recorded) -> list[tuple[str, dict[str, Any]]]:
    """(tool name, arguments schema) of each branch of the request's constraint; [] without one."""
    fmt = request.body.get("response_format")
    if fmt is None:
        return []
    schema = fmt["json_schema"]["schema"] if fmt["type"] == "json_schema" else fmt["schema"]
    return [(b["properties"]["name"]["const"], b["properties"]["arguments"]) for b in schema.get("anyOf", [schema])]


def edit_choices(request: Recorded) -> dict[str, list[str]]:
    """Per file an edit may target: the old_string values it may name."""
    return {args["properties"]["path"]["const"]: args["properties"]["old_string"]["enum"]
            for name, args in branches(request) if name == "edit_file"}


NOTES = "# Notes\nWelcom to the notes.\nsame\nsame\n"


def test_an_edit_may_only_name_a_line_the_file_holds_once(server, run_axon, project):
    (project / "notes.md").write_text(NOTES)
    (project / "other.md").write_text("Teh other file.\n")
    server.add(text_reply(call_json("edit_file", {"path": "notes.md", "old_string": "Welcom to the notes.",
                                                  "new_string": "Welcome to the notes."})),
               text_reply("Fixed the typo."))
    r = run_axon("run", "fix the typo in notes.md", "--yes")
    assert r.code == 0, r.stderr
    assert edit_choices(server.requests[0]) == {"notes.md": ["# Notes", "Welcom to the notes."]}  # attached = read
    assert (project / "notes.md").read_text() == NOTES.replace("Welcom", "Welcome")


def test_no_edit_is_offered_before_a_read_and_a_read_only_of_files_that_exist(server, run_axon, project, tmp_path):
    (project / "a.py").write_text("x = 1\n" * 2000)          # too large to attach: not read
    (project / "src").mkdir()
    (project / "src" / "b.py").write_text("y = 2\n")
    (tmp_path / "outside.py").write_text("z = 3\n")
    server.add(text_reply(call_json("read_file", {"path": "a.py", "limit": 2})),
               text_reply("It sets x to 1."))
    r = run_axon("run", "what does a.py do?", "--yes")
    assert r.code == 0, r.stderr
    first = dict(branches(server.requests[0]))
    assert first and "edit_file" not in first
    paths = set(first["read_file"]["properties"]["path"]["enum"])
    assert {"a.py", "src/b.py"} <= paths
    assert not any("outside" in p or p.startswith(("/", "..")) for p in paths)


def test_the_same_failed_call_twice_leaves_its_tool_out_of_the_next_constrained_reply(server, run_axon, project):
    (project / "a.py").write_text("x = 1\n" * 2000)
    missing = ("read_file", {"path": "missing.py"})
    server.add(tool_reply(missing), tool_reply(missing), tool_reply(("search_files", {"pattern": "x = 1"})),
               text_reply("It sets x to 1."), text_reply("It sets x to 1."))
    r = run_axon("run", "what does a.py do?", "--yes")
    assert r.code == 0, r.stderr
    allowed = [{name for name, _ in branches(q)} for q in server.requests[:3]]
    assert "read_file" in allowed[0] and "read_file" in allowed[1]     # one failure: fix it
    assert allowed[2] and "read_file" not in allowed[2]                  # the same failure again: another way


def test_a_line_holding_a_masked_secret_never_reaches_the_server(server, run_axon, project):
    token = "ghp_" + "C4NARY" * 6
    (project / "settings.py").write_text(f"DEBUG = True\nGITHUB_TOKEN = {token}\nNAME = demo\n")
    server.add(text_reply(call_json("edit_file", {"path": "settings.py", "old_string": "DEBUG = True",
                                                  "new_string": "DEBUG = False"})),
               text_reply("Debug is off."))
    r = run_axon("run", "change DEBUG to False in settings.py", "--yes")
    assert r.code == 0, r.stderr
    choices = edit_choices(server.requests[0])
    assert choices == {"settings.py": ["DEBUG = True", "NAME = demo"]}
    assert "C4NARY" not in json.dumps([q.body for q in server.requests])
    assert (project / "settings.py").read_text().startswith("DEBUG = False\n")


def test_a_file_the_task_moves_is_not_edited_before_it_moves(server, run_axon, project):
    (project / "draft.txt").write_text("1. pick a venue\n")
    (project / "keep.txt").write_text("unrelated\n")
    server.add(text_reply(call_json("bash", {"command": "mv draft.txt plan.txt"})), text_reply("Renamed."))
    r = run_axon("run", "Rename draft.txt to plan.txt.", "--yes")
    assert r.code == 0, r.stderr
    first = branches(server.requests[0])
    assert "draft.txt" in json.dumps(server.requests[0].conversation)       # attached: it counts as read...
    assert first and "edit_file" not in {name for name, _ in first}         # ...but renaming is no edit
    assert (project / "plan.txt").read_text() == "1. pick a venue\n" and not (project / "draft.txt").exists()
