"""ACP session modes: axon's permission modes in the editor's mode selector (``session/set_mode``),
driven by the SDK's real client against the real ``axon acp``; the effect is read from the files."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import RequestError, text_block
from acp.schema import ClientCapabilities

from axon_cli.policy.modes import MODES
from tests.e2e.acp.client import RecordingClient, open_axon
from tests.e2e.acp.test_acp_e2e import _run
from tests.fakeserver import ScriptedServer, text_reply, tool_reply


def test_the_editor_picks_the_mode_and_the_next_calls_are_decided_in_it(project: Path, server: ScriptedServer,
                                                                         axon_env: dict[str, str],
                                                                         tmp_path: Path) -> None:
    server.add(tool_reply(("write_file", {"path": "asked.txt", "content": "x\n"})), text_reply("refused"),
               tool_reply(("write_file", {"path": "edits.txt", "content": "y\n"})), text_reply("written"),
               tool_reply(("write_file", {"path": "readonly.txt", "content": "z\n"})), text_reply("not written"))
    client = RecordingClient(answers=["reject_once"])

    async def drive() -> None:
        async with open_axon(client, project, axon_env, tmp_path / "stderr.txt") as conn:
            await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            sid = session.session_id
            assert session.modes.current_mode_id == "default"
            assert [m.id for m in session.modes.available_modes] == list(MODES)
            await conn.prompt(session_id=sid, prompt=[text_block("write asked.txt")])       # default: asks
            assert len(client.permission_requests) == 1
            await conn.set_session_mode(session_id=sid, mode_id="accept-edits")
            await conn.prompt(session_id=sid, prompt=[text_block("write edits.txt")])
            await conn.set_session_mode(session_id=sid, mode_id="read-only")
            await conn.prompt(session_id=sid, prompt=[text_block("write readonly.txt")])
            with pytest.raises(RequestError):
                await conn.set_session_mode(session_id=sid, mode_id="bogus")
            with pytest.raises(RequestError):
                await conn.set_session_mode(session_id="no-such-session", mode_id="yolo")
            assert len(client.permission_requests) == 1      # neither later write asked

    _run(drive())
    assert not (project / "asked.txt").exists()           # the user rejected it
    assert (project / "edits.txt").read_text() == "y\n"   # accept-edits: written without asking
    assert not (project / "readonly.txt").exists()        # read-only: refused
    assert client.validate_raw() >= 4
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()
