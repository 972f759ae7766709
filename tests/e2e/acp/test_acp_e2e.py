"""``axon acp`` driven end to end by the SDK's real client: initialize, a session that reads and edits
a file under permission requests (allow once, then reject), a plan, a cancel mid-turn, a session
loaded in a new process, the client's buffers read through ``fs/read_text_file``, and bad requests
answered with ACP errors."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from acp import (
    RequestError,
    embedded_text_resource,
    image_block,
    resource_block,
    resource_link_block,
    text_block,
)
from acp.schema import ClientCapabilities, FileSystemCapabilities, McpServerStdio

from tests.e2e.acp.client import DEADLINE_S, RecordingClient, open_axon, updates_of
from tests.fakeserver import Reply, ScriptedServer, text_reply, tool_reply

DEMO = str(Path(__file__).resolve().parents[2] / "mcp_servers" / "demo_server.py")
ORIGINAL = "def f():\n    return 1\n"
EDITED = "def f():\n    return 2\n"


def _run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, DEADLINE_S * 3))


def _stalled(release: threading.Event) -> Any:
    def reply(_body: dict[str, Any]) -> Reply:
        release.wait(DEADLINE_S)
        return text_reply("too late")
    return reply


def _conversation_text(server: ScriptedServer, index: int) -> str:
    return "\n".join(str(m.get("content")) for m in server.requests[index].conversation)


def test_acp_session_edits_under_permission_cancels_and_loads(project: Path, server: ScriptedServer,
                                                                axon_env: dict[str, str], tmp_path: Path) -> None:
    target = project / "a.py"
    target.write_text(ORIGINAL)
    release = threading.Event()
    server.add(tool_reply(("read_file", {"path": "a.py"})),
               tool_reply(("edit_file", {"path": "a.py", "old_string": "return 1", "new_string": "return 2"})),
               tool_reply(("edit_file", {"path": "a.py", "old_string": "return 2", "new_string": "return 3"})),
               tool_reply(("tool_search", {"query": "select:todo_write"})),
               tool_reply(("todo_write", {"todos": [{"content": "edit a.py", "status": "done"},
                                                     {"content": "run tests", "status": "pending"}]})),
               text_reply("edited a.py"),
               _stalled(release))
    client = RecordingClient(answers=["allow_once", "reject_once"])
    stderr = tmp_path / "acp-stderr.txt"

    async def first_process() -> str:
        async with open_axon(client, project, axon_env, stderr) as conn:
            init = await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
            caps = init.agent_capabilities
            assert caps.load_session is True and caps.prompt_capabilities.embedded_context is True
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            done = await conn.prompt(session_id=session.session_id, prompt=[text_block("read then edit a.py")])
            assert done.stop_reason == "end_turn"
            assert target.read_text() == EDITED          # allowed once, then the second edit rejected

            turn = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("wait")]))
            await asyncio.to_thread(server.wait_for_requests, 7, DEADLINE_S)   # the stalled request is in
            await conn.cancel(session_id=session.session_id)
            cancelled = await asyncio.wait_for(turn, DEADLINE_S)
            release.set()
            assert cancelled.stop_reason == "cancelled"
            return str(session.session_id)

    try:
        session_id = _run(first_process())
    finally:
        release.set()
    errors = stderr.read_text()
    assert "Traceback" not in errors, errors

    starts = updates_of(client, "tool_call")
    assert [s.kind for s in starts[:3]] == ["read", "edit", "edit"]
    assert starts[0].locations[0].path == str(target)
    ends = [u for u in updates_of(client, "tool_call_update") if u.status in ("completed", "failed")]
    assert [e.status for e in ends[:3]] == ["completed", "completed", "failed"]
    running = {u.tool_call_id for u in updates_of(client, "tool_call_update") if u.status == "in_progress"}
    assert starts[1].tool_call_id in running and starts[2].tool_call_id not in running   # allowed, rejected
    diffs = [c for c in ends[1].content if c.type == "diff"]
    assert diffs and diffs[0].path == str(target) and diffs[0].old_text == ORIGINAL and diffs[0].new_text == EDITED
    assert not [c for c in ends[2].content if c.type == "diff"]
    assert [o.kind for o in client.permission_requests[0].options] == ["allow_once", "allow_always", "reject_once"]
    assert client.permission_requests[0].tool_call.tool_call_id == starts[1].tool_call_id
    plans = updates_of(client, "plan")
    assert [(e.content, e.status) for e in plans[-1].entries] == [("edit a.py", "completed"), ("run tests", "pending")]
    text = "".join(u.content.text for u in updates_of(client, "agent_message_chunk"))
    assert "edited a.py" in text
    assert client.validate_raw() >= 10

    server.add(text_reply("continued"))
    loaded = RecordingClient()

    async def second_process() -> str:
        async with open_axon(loaded, project, axon_env, stderr) as conn:
            await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
            reply = await conn.load_session(cwd=str(project), session_id=session_id, mcp_servers=[])
            assert reply.modes.current_mode_id == "default"      # the editor's mode selector starts here
            replayed = list(loaded.updates)
            done = await conn.prompt(session_id=session_id, prompt=[text_block("and now?")])
            assert done.stop_reason == "end_turn"
            return "".join(u.content.text for u in replayed if u.session_update == "user_message_chunk")

    user_words = _run(second_process())
    assert "read then edit a.py" in user_words and "wait" in user_words
    replayed_calls = updates_of(loaded, "tool_call")
    assert [c.title for c in replayed_calls[:3]] == ["read_file", "edit_file", "edit_file"]
    replayed_ends = [u.status for u in updates_of(loaded, "tool_call_update")][:3]
    assert replayed_ends == ["completed", "completed", "failed"]
    assert "read then edit a.py" in _conversation_text(server, len(server.requests) - 1)
    assert loaded.validate_raw() >= 5
    assert "Traceback" not in stderr.read_text()


def test_acp_reads_and_edits_the_clients_buffer(project: Path, server: ScriptedServer, axon_env: dict[str, str],
                                                tmp_path: Path) -> None:
    target = project / "a.py"
    target.write_text("on disk\n")
    server.add(tool_reply(("read_file", {"path": "a.py"})),
               tool_reply(("edit_file", {"path": "a.py", "old_string": "UNSAVED", "new_string": "EDITED"})),
               text_reply("read it"))
    client = RecordingClient(answers=["allow_once"], buffers={str(target): "UNSAVED BUFFER TEXT\n"})
    caps = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True, write_text_file=True))

    async def drive() -> None:
        async with open_axon(client, project, axon_env, tmp_path / "stderr.txt") as conn:
            await conn.initialize(protocol_version=1, client_capabilities=caps)
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            done = await conn.prompt(session_id=session.session_id, prompt=[text_block("read a.py")])
            assert done.stop_reason == "end_turn"

    _run(drive())
    assert client.reads and set(client.reads) == {str(target)}
    sent = _conversation_text(server, 1)
    assert "UNSAVED BUFFER TEXT" in sent and "on disk" not in sent
    assert client.writes == [(str(target), "EDITED BUFFER TEXT\n")]     # through the editor, not the disk
    assert target.read_text() == "on disk\n"
    diff = [c for u in updates_of(client, "tool_call_update") for c in u.content or [] if c.type == "diff"]
    assert [(d.old_text, d.new_text) for d in diff] == [("UNSAVED BUFFER TEXT\n", "EDITED BUFFER TEXT\n")]
    client.validate_raw()


def test_acp_untrusted_folder_widening_files_do_not_apply(project: Path, server: ScriptedServer,
                                                         axon_env: dict[str, str], tmp_path: Path) -> None:
    (project / ".axon").mkdir()
    (project / ".axon" / "permissions.toml").write_text('mode = "yolo"\nallow = ["edit_file"]\n')
    target = project / "a.py"
    target.write_text(ORIGINAL)
    server.add(tool_reply(("read_file", {"path": "a.py"})),
               tool_reply(("edit_file", {"path": "a.py", "old_string": "return 1", "new_string": "return 2"})),
               text_reply("tried"))
    client = RecordingClient(answers=["reject_once"])

    async def drive() -> None:
        async with open_axon(client, project, axon_env, tmp_path / "stderr.txt") as conn:
            await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            await conn.prompt(session_id=session.session_id, prompt=[text_block("edit a.py")])

    _run(drive())
    assert target.read_text() == ORIGINAL                  # the planted yolo/allow did not let it through
    assert len(client.permission_requests) == 1
    thoughts = "".join(u.content.text for u in updates_of(client, "agent_thought_chunk"))
    assert "ignored until this folder is trusted" in thoughts
    client.validate_raw()


def test_acp_clients_mcp_server_joins_the_session(project: Path, server: ScriptedServer,
                                                  axon_env: dict[str, str], tmp_path: Path) -> None:
    server.add(tool_reply(("tool_search", {"query": "select:mcp__editor__echo"})),
               tool_reply(("mcp__editor__echo", {"text": "hello from the editor's server"})),
               text_reply("echoed"))
    client = RecordingClient(answers=["allow_once"])
    demo = McpServerStdio(name="editor", command=sys.executable, args=[DEMO], env=[])

    async def drive() -> None:
        async with open_axon(client, project, axon_env, tmp_path / "stderr.txt") as conn:
            await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
            session = await conn.new_session(cwd=str(project), mcp_servers=[demo])
            await conn.prompt(session_id=session.session_id, prompt=[text_block("echo")])

    _run(drive())
    answer = server.requests[2].messages[-1]
    assert answer["role"] == "tool" and "hello from the editor's server" in answer["content"]


def png_base64(width: int, height: int) -> str:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode()


def test_acp_prompt_attaches_linked_and_embedded_files_and_images(project: Path, server: ScriptedServer,
                                                                  axon_env: dict[str, str], tmp_path: Path) -> None:
    (project / "b.py").write_text("LINKED_FILE_TEXT = 1\n")
    server.add(text_reply("seen"))
    client = RecordingClient()
    blocks = [text_block("look at these"),
              resource_link_block("b.py", (project / "b.py").as_uri()),
              resource_block(embedded_text_resource((project / "c.py").as_uri(), "EMBEDDED_BUFFER = 2\n")),
              image_block(png_base64(3000, 2000), "image/png"),
              image_block("iVBORw0KGgo=", "image/png")]           # a PNG header and nothing after it

    async def drive() -> None:
        async with open_axon(client, project, dict(axon_env, AXON_MODEL="gpt-4o"), tmp_path / "stderr.txt") as conn:
            init = await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
            assert init.agent_capabilities.prompt_capabilities.image is True
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            done = await conn.prompt(session_id=session.session_id, prompt=blocks)
            assert done.stop_reason == "end_turn"

    _run(drive())
    content = server.requests[0].conversation[-1]["content"]
    assert isinstance(content, list)
    user = "".join(part.get("text", "") for part in content)
    assert "look at these" in user
    assert '<file path="b.py">\nLINKED_FILE_TEXT = 1' in user
    assert '<file path="c.py">\nEMBEDDED_BUFFER = 2' in user
    pictures = [part["image_url"]["url"] for part in content if part.get("type") == "image_url"]
    assert len(pictures) == 1, "the broken image must not be sent"
    from PIL import Image

    sent = Image.open(io.BytesIO(base64.b64decode(pictures[0].split(",", 1)[1])))
    assert max(sent.size) <= 1568 and sent.size[0] > sent.size[1]      # scaled down, shape kept
    assert "iVBORw0KGgo=" not in json.dumps(server.requests[0].body)
    client.validate_raw()


def test_acp_cancel_while_a_permission_request_waits(project: Path, server: ScriptedServer,
                                                     axon_env: dict[str, str], tmp_path: Path) -> None:
    target = project / "a.py"
    target.write_text(ORIGINAL)
    server.add(tool_reply(("read_file", {"path": "a.py"})),
               tool_reply(("edit_file", {"path": "a.py", "old_string": "return 1", "new_string": "return 2"})),
               text_reply("should not be asked for"))
    client = RecordingClient(answers=["wait"])

    async def drive() -> str:
        async with open_axon(client, project, axon_env, tmp_path / "stderr.txt") as conn:
            await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            turn = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("edit")]))
            await asyncio.wait_for(client.asked.wait(), DEADLINE_S)
            await conn.cancel(session_id=session.session_id)
            client.cancelled.set()
            done = await asyncio.wait_for(turn, DEADLINE_S)
            return str(done.stop_reason)

    assert _run(drive()) == "cancelled"
    assert target.read_text() == ORIGINAL
    assert len(server.requests) == 2                  # the turn stopped: no request after the denial
    client.validate_raw()


def test_acp_bad_requests_get_protocol_errors(project: Path, server: ScriptedServer, axon_env: dict[str, str],
                                              tmp_path: Path) -> None:
    client = RecordingClient()
    stderr = tmp_path / "stderr.txt"

    async def drive() -> None:
        async with open_axon(client, project, axon_env, stderr) as conn:
            await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
            with pytest.raises(RequestError):
                await conn.prompt(session_id="no-such-session", prompt=[text_block("hi")])
            with pytest.raises(RequestError):
                await conn.load_session(cwd=str(project), session_id="no-such-session", mcp_servers=[])
            with pytest.raises(RequestError):
                await conn.new_session(cwd=str(project / "missing"), mcp_servers=[])
            session = await conn.new_session(cwd=str(project), mcp_servers=[])   # still serving
            assert session.session_id

    _run(drive())
    assert "Traceback" not in stderr.read_text()
    assert server.requests == []
