"""Checkpoints and undo, through the real agent loop, dispatch and file tools (scripted server)."""

from __future__ import annotations

import json

import pytest

from axon_cli.config import load_settings
from axon_cli.events import AutoApprover
from axon_cli.runtime import open_session
from tests.conftest import TEST_KEY
from tests.fakeserver import text_reply, tool_reply


@pytest.fixture
def loaded(project, server, monkeypatch):
    monkeypatch.chdir(project)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(project.parent / "home" / ".config"))
    return load_settings(project, flags={"base_url": server.url, "api_key": TEST_KEY, "model": "test-model",
                                         "max_attempts": 1}, env={})


def _open(loaded, project, **kw):
    return open_session(loaded, project, AutoApprover(), **kw)


def _edit(path: str, old: str, new: str):
    return tool_reply(("edit_file", {"path": path, "old_string": old, "new_string": new}))


def test_undo_restores_a_file_edited_twice_in_one_turn(loaded, project, server):
    (project / "a.txt").write_text("one\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"})), _edit("a.txt", "one", "two"),
               _edit("a.txt", "two", "three"), tool_reply(("write_file", {"path": "new.txt", "content": "hi\n"})),
               text_reply("done"))
    rt = _open(loaded, project)
    try:
        assert rt.agent.run("change a").stop_reason == "final"
        assert (project / "a.txt").read_text() == "three\n" and (project / "new.txt").exists()
        lines = rt.undo()
    finally:
        rt.close()
    assert (project / "a.txt").read_text() == "one\n"
    assert not (project / "new.txt").exists()
    assert lines == ["undo of turn 1:", "  restored a.txt", "  deleted new.txt (axon created it)"]
    manifest = json.loads(next((project / ".axon" / "checkpoints" / rt.session_id).glob("*/manifest.json"))
                          .read_text())
    assert manifest["undone"] is True and [e["path"] for e in manifest["entries"]] == [
        str(project / "a.txt"), str(project / "new.txt")]


def test_a_file_changed_since_by_someone_else_is_reported_not_overwritten(loaded, project, server):
    (project / "a.txt").write_text("a1\n")
    (project / "b.txt").write_text("b1\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"}), ("read_file", {"path": "b.txt"})),
               _edit("a.txt", "a1", "a2"), _edit("b.txt", "b1", "b2"), text_reply("done"))
    rt = _open(loaded, project)
    try:
        rt.agent.run("change both")
        (project / "b.txt").write_text("the user's own change\n")
        lines = rt.undo()
    finally:
        rt.close()
    assert (project / "a.txt").read_text() == "a1\n"
    assert (project / "b.txt").read_text() == "the user's own change\n"
    assert lines[1:] == ["  restored a.txt", "  skipped b.txt: changed since axon's edit (left as it is)"]


def test_undo_after_resume_walks_back_turn_by_turn(loaded, project, server):
    (project / "a.txt").write_text("v0\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"})), _edit("a.txt", "v0", "v1"), text_reply("t1"),
               _edit("a.txt", "v1", "v2"), text_reply("t2"), text_reply("t3 changes nothing"))
    rt = _open(loaded, project)
    try:
        for task in ("first", "second", "third"):
            rt.agent.run(task)
    finally:
        rt.close()
    assert (project / "a.txt").read_text() == "v2\n"
    rt2 = _open(loaded, project, cont=True)
    try:
        assert rt2.session_id == rt.session_id
        assert rt2.undo()[:2] == ["undo of turn 2:", "  restored a.txt"]
        assert (project / "a.txt").read_text() == "v1\n"
        assert rt2.undo()[:2] == ["undo of turn 1:", "  restored a.txt"]
        assert (project / "a.txt").read_text() == "v0\n"
        assert rt2.undo()[0].startswith("nothing to undo")
        # the model hears about it: the note is in the history it will be sent
        assert "undid your file changes" in rt2.agent.messages[-1]["content"]
    finally:
        rt2.close()


def test_an_edit_that_changed_nothing_is_not_undone(loaded, project, server):
    (project / "a.txt").write_text("same\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"})), _edit("a.txt", "missing text", "x"), text_reply("ok"))
    rt = _open(loaded, project)
    try:
        rt.agent.run("try")
        assert rt.undo()[0].startswith("nothing to undo")
    finally:
        rt.close()
    assert (project / "a.txt").read_text() == "same\n"
