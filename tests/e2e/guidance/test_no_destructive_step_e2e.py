"""The issue's own case through the real ``axon run``: asked to "remove the debug print from app.py",
the model runs a ``sed`` whose pattern matches nothing and says it is done. axon sends it back with
the fact that app.py has not changed and the step to change it — never ``rm app.py`` — and a model
that does as told leaves app.py in place. Asked to delete a file, the same check names the deletion."""

from __future__ import annotations

import json

from tests.fakeserver import text_reply, tool_reply

APP = 'import os\n\nprint("DEBUG: here")\nprint("hello")\n'


def test_removing_a_line_from_a_file_is_never_answered_with_rm(server, run_axon, project):
    (project / "app.py").write_text(APP)
    server.add(tool_reply(("read_file", {"path": "app.py"})),
               tool_reply(("bash", {"command": "sed -i '/print(\"debug\")/d' app.py"})),
               text_reply("I removed the debug print from app.py."),
               tool_reply(("edit_file", {"path": "app.py", "old_string": 'print("DEBUG: here")\n', "new_string": ""})),
               text_reply("Removed the debug print."))
    r = run_axon("run", "remove the debug print from app.py", "--yes", "--output-format", "json")
    assert r.code == 0, r.stderr
    reminder = server.requests[3].messages[-1]["content"]
    assert reminder.startswith("Not done yet: app.py has not changed") and "rm " not in reminder
    assert (project / "app.py").read_text() == 'import os\n\nprint("hello")\n'
    assert json.loads(r.stdout)["result"] == "Removed the debug print."


def test_a_file_emptied_instead_of_deleted_is_told_the_asked_for_deletion(server, run_axon, project):
    (project / "scratch.log").write_text("x\n")
    server.add(tool_reply(("read_file", {"path": "scratch.log"})),
               tool_reply(("write_file", {"path": "scratch.log", "content": ""})),
               text_reply("scratch.log has been deleted."), text_reply("It is still there, as you see."))
    r = run_axon("run", "Delete the file scratch.log.", "--yes", "--output-format", "json")
    assert r.code == 0, r.stderr
    reminder = server.requests[3].messages[-1]["content"]
    assert reminder.startswith("Not done yet: scratch.log still exists")
    assert '{"command": "rm scratch.log"}' in reminder
