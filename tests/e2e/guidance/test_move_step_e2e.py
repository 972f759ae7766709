"""A rename the task asks for, through the real ``axon run`` and the scripted server: after a call
of the turn fails, the result the model reads names the one command that makes the move, and a
model that makes that call renames the file on disk; with the guidance off, or when the move would
overwrite a file, no command is named and nothing moves."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakeserver import text_reply, tool_reply

WRONG_TOOL = ("edit_file", {"path": "ledger.txt", "old_string": "ledger", "new_string": "journal"})
MOVE = "mv -n ledger.txt journal.txt"


def tool_messages(server) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(str(m.get("content")) for r in server.requests for m in r.messages if m.get("role") == "tool")


def test_the_failed_call_names_the_move_and_the_move_is_made(server, run_axon, project: Path):
    (project / "ledger.txt").write_text("rent 1200\n")
    server.add(tool_reply(WRONG_TOOL), tool_reply(("bash", {"command": MOVE})), text_reply("Renamed it."))
    r = run_axon("run", "Rename ledger.txt to journal.txt.", "--yes", "--output-format", "json")
    assert r.code == 0, r.stderr
    assert json.dumps(MOVE)[1:-1] in json.dumps(server.requests[1].messages[-1]["content"])
    assert not (project / "ledger.txt").exists()
    assert (project / "journal.txt").read_text() == "rent 1200\n"


def test_with_the_guidance_off_no_command_is_named(server, run_axon, project: Path, axon_env):
    (project / "ledger.txt").write_text("rent 1200\n")
    config = Path(axon_env["XDG_CONFIG_HOME"]) / "axon" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('guidance = "off"\n')
    server.add(tool_reply(WRONG_TOOL), text_reply("I could not rename it."))
    r = run_axon("run", "Rename ledger.txt to journal.txt.", "--yes", "--output-format", "json")
    assert r.code == 0, r.stderr
    assert len(server.requests) == 2 and "mv " not in tool_messages(server)
    assert (project / "ledger.txt").read_text() == "rent 1200\n" and not (project / "journal.txt").exists()


def test_a_move_onto_an_existing_file_is_never_named(server, run_axon, project: Path):
    (project / "ledger.txt").write_text("rent 1200\n")
    (project / "journal.txt").write_text("keep me\n")
    server.add(tool_reply(WRONG_TOOL), text_reply("journal.txt already exists; which one should I keep?"))
    r = run_axon("run", "Rename ledger.txt to journal.txt.", "--yes", "--output-format", "json")
    assert r.code == 0, r.stderr
    assert len(server.requests) >= 2 and "mv " not in tool_messages(server)
    assert (project / "journal.txt").read_text() == "keep me\n"
    assert (project / "ledger.txt").read_text() == "rent 1200\n"


def test_writing_the_destination_instead_of_moving_is_refused_with_the_move(server, run_axon, project: Path):
    (project / "ledger.txt").write_text("rent 1200\n")
    move = "mkdir -p archive && mv -n ledger.txt archive/"
    server.add(tool_reply(("write_file", {"path": "archive/ledger.txt", "content": "invented\n"})),
               tool_reply(("bash", {"command": move})), text_reply("Moved it."))
    r = run_axon("run", "Move ledger.txt into the archive folder.", "--yes", "--output-format", "json")
    assert r.code == 0, r.stderr
    assert json.dumps(move)[1:-1] in json.dumps(server.requests[1].messages[-1]["content"])
    assert (project / "archive" / "ledger.txt").read_text() == "rent 1200\n"     # moved, never written
    assert not (project / "ledger.txt").exists()


def test_a_write_elsewhere_in_a_move_task_runs(server, run_axon, project: Path):
    (project / "ledger.txt").write_text("rent 1200\n")
    server.add(tool_reply(("write_file", {"path": "NOTES.md", "content": "moving the ledger\n"})),
               tool_reply(("bash", {"command": "mkdir -p archive && mv ledger.txt archive/"})), text_reply("Moved."))
    r = run_axon("run", "Move ledger.txt into the archive folder.", "--yes", "--output-format", "json")
    assert r.code == 0, r.stderr
    assert (project / "NOTES.md").read_text() == "moving the ledger\n"
    assert (project / "archive" / "ledger.txt").read_text() == "rent 1200\n"
