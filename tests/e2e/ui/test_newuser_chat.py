"""``axon chat --resume`` without an ID (the contract's ``--resume [ID]``) opens the session picker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.ui.test_repl import ENTER, Chat
from tests.fakeserver import text_reply


@pytest.fixture
def earlier_session(server, run_axon) -> str:
    server.add(text_reply("first answer"))
    r = run_axon("run", "an earlier task", "--output-format", "json")
    assert r.code == 0, r.stderr
    return str(json.loads(r.stdout)["session_id"])


@pytest.mark.parametrize("args", [("--resume",), ("-r", "--mode", "read-only")])
def test_bare_resume_opens_the_picker(project: Path, axon_env, earlier_session: str, args) -> None:
    c = Chat(project, axon_env, *args)
    try:
        c.expect(earlier_session)
        c.expect("an earlier task")
        c.expect("session number (Enter to cancel)")
        c.send("1" + ENTER)
        c.expect(f"resumed session {earlier_session}")
        c.prompt()
        if "read-only" in args:          # the flag after a bare -r still counts
            assert "mode read-only" in c.text()
        c.exit()
    finally:
        if c.child.isalive():
            c.child.terminate(force=True)
