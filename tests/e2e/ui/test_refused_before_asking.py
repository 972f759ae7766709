"""Issue 34, item 6: a confirmation is shown only for a call that can run. In ``default`` mode an
``edit_file``/``write_file`` the handler would refuse (the file not read, no match for old_string, a
directory) fails to the model at once — no "allow …?" on the screen, nothing written — and a valid
edit of the same file still asks (so the prompt the test looks for is the real one).

The real ``axon chat`` in a pseudo-terminal against the scripted server.
"""

from __future__ import annotations

from pathlib import Path

from tests.fakeserver import text_reply, tool_reply


def _answer(server, index: int) -> str:
    """The tool result the model received in request ``index`` (its last message)."""
    return str(server.requests[index].messages[-1]["content"])


def test_a_call_that_would_be_refused_fails_without_a_confirmation(chat, server, project: Path, axon_env) -> None:
    config = Path(axon_env["XDG_CONFIG_HOME"]) / "axon" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('guidance = "off"\n')      # one scripted reply a refusal: no small-model nudge after it
    (project / "notes.txt").write_text("alpha\nbeta\n")
    (project / "pkg").mkdir()
    server.add(tool_reply(("edit_file", {"path": "notes.txt", "old_string": "alpha", "new_string": "ALPHA"})),
               text_reply("refused: unread"),
               tool_reply(("write_file", {"path": "notes.txt", "content": "replaced\n"})),
               text_reply("refused: unread write"),
               tool_reply(("read_file", {"path": "notes.txt"})),
               tool_reply(("edit_file", {"path": "notes.txt", "old_string": "gamma", "new_string": "GAMMA"})),
               text_reply("refused: no match"),
               tool_reply(("edit_file", {"path": "pkg", "old_string": "a", "new_string": "b"})),
               text_reply("refused: a directory"))
    c = chat()
    for i, said in enumerate(("edit it", "write it", "read then edit", "edit the folder")):
        c.say(said)
        c.expect(("refused: unread", "refused: unread write", "refused: no match", "refused: a directory")[i])
        c.prompt()
    shown = c.text()
    assert "allow edit_file?" not in shown and "allow write_file?" not in shown
    assert "has not been read" in _answer(server, 1)
    assert "has not been read" in _answer(server, 3)
    assert "old_string not found" in _answer(server, 6)
    assert "is a directory" in _answer(server, 8)
    assert (project / "notes.txt").read_text() == "alpha\nbeta\n"

    server.add(tool_reply(("edit_file", {"path": "notes.txt", "old_string": "alpha", "new_string": "ALPHA"})),
               text_reply("asked"))
    c.say("now a valid edit")
    c.expect("allow edit_file?")        # the same file, read and matching: this one can run, so it asks
    c.send("n")
    c.expect("asked")
    assert (project / "notes.txt").read_text() == "alpha\nbeta\n"
    c.exit()
