"""End-to-end: ``axon mcp-server`` spawned by the official MCP client (the ``mcp`` SDK's ``Client`` over
stdio), its sessions talking to the scripted model server. Assertions are on what the client received,
the files on disk and what the model was sent."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from pathlib import Path
from typing import Any

import mcp_types as t
import pytest
from mcp import Client, StdioServerParameters

from axon_cli.kernel.turn import UserTurn
from tests.conftest import axon_command
from tests.fakeserver import text_reply, tool_reply

# Elicitation travels as a server-to-client request in the handshake-era protocol (2025-11-25 and earlier),
# which the MCP clients in editors and agents speak; the client below is told to use it.
ERA = "legacy"


def serve(project: Path, env: dict[str, str], *flags: str) -> StdioServerParameters:
    command = axon_command()
    return StdioServerParameters(command=command[0], args=[*command[1:], "mcp-server", *flags], env=env,
                                 cwd=str(project))


def talk(params: StdioServerParameters, calls: list[tuple[str, dict[str, Any]]], **client: Any) -> list[Any]:
    async def main() -> list[Any]:
        async with Client(params, read_timeout_seconds=120, mode=ERA, **client) as c:
            out = []
            for name, args in calls:
                out.append(await c.call_tool(name, args))
            return out
    return asyncio.run(asyncio.wait_for(main(), 180))


def text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def test_axon_edits_a_file_and_axon_reply_continues_the_session(server, project, axon_env):
    (project / "a.txt").write_text("colour\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"})),
               tool_reply(("edit_file", {"path": "a.txt", "old_string": "colour", "new_string": "color"})),
               text_reply("fixed the spelling"), text_reply("it was one word"))
    first, second = None, None

    async def main() -> None:
        nonlocal first, second
        async with Client(serve(project, axon_env, "--mode", "accept-edits"), read_timeout_seconds=120) as c:   # auto: the newest protocol
            first = await c.call_tool("axon", {"prompt": "fix the spelling in a.txt", "cwd": str(project),
                                                "mode": "accept-edits"})
            sid = first.structured_content["session_id"]
            second = await c.call_tool("axon-reply", {"session_id": sid, "prompt": "how many words?"})
    asyncio.run(asyncio.wait_for(main(), 180))
    assert first is not None and second is not None
    assert (project / "a.txt").read_text() == "color\n"
    assert text(first) == "fixed the spelling" and not first.is_error
    data = first.structured_content
    assert data["stop_reason"] == "final" and data["num_turns"] == 3 and data["changed_files"] == ["a.txt"]
    assert data["usage"]["total_tokens"] > 0
    assert text(second) == "it was one word"
    assert second.structured_content["session_id"] == data["session_id"]
    users = [UserTurn.from_message(m["content"]).text for m in server.requests[3].conversation if m["role"] == "user"]
    assert users[:2] == ["fix the spelling in a.txt", "how many words?"]
    assert (project / ".axon" / "sessions" / f"{data['session_id']}.jsonl").is_file()


def test_a_destructive_call_reaches_the_client_as_an_elicitation_and_a_decline_changes_nothing(server, project, axon_env):
    (project / "keep.txt").write_text("precious\n")
    server.add(tool_reply(("bash", {"command": "rm keep.txt"})), text_reply("left it"))
    asked: list[str] = []

    async def decline(context: Any, params: Any) -> Any:
        asked.append(params.message)
        return t.ElicitResult(action="decline")

    [result] = talk(serve(project, axon_env), [("axon", {"prompt": "delete keep.txt", "cwd": str(project)})],
                    elicitation_callback=decline)
    assert (project / "keep.txt").read_text() == "precious\n"
    assert len(asked) == 1 and "rm keep.txt" in asked[0]
    assert server.requests[1].messages[-1]["content"].startswith("Permission denied")


def test_an_accepted_elicitation_runs_the_call(server, project, axon_env):
    (project / "gone.txt").write_text("x\n")
    server.add(tool_reply(("bash", {"command": "rm gone.txt"})), text_reply("deleted"))

    async def accept(context: Any, params: Any) -> Any:
        return t.ElicitResult(action="accept", content={"approve": True})

    [result] = talk(serve(project, axon_env), [("axon", {"prompt": "delete gone.txt", "cwd": str(project)})],
                    elicitation_callback=accept)
    assert not (project / "gone.txt").exists()
    assert text(result) == "deleted"


def test_a_client_without_elicitation_gets_a_refusal_in_the_result(server, project, axon_env):
    (project / "keep.txt").write_text("precious\n")
    server.add(tool_reply(("bash", {"command": "rm keep.txt"})), text_reply("could not delete it"))
    [result] = talk(serve(project, axon_env), [("axon", {"prompt": "delete keep.txt", "cwd": str(project)})])
    assert (project / "keep.txt").exists()
    refusal = server.requests[1].messages[-1]["content"]
    assert refusal.startswith("Permission denied") and "elicitation" in refusal
    assert text(result) == "could not delete it"


def test_a_client_never_gets_a_mode_above_the_servers(server, project, axon_env):
    (project / "keep.txt").write_text("precious\n")
    server.add(tool_reply(("bash", {"command": "rm keep.txt"})), text_reply("done"))
    [result] = talk(serve(project, axon_env), [("axon", {"prompt": "delete keep.txt", "cwd": str(project),
                                                         "mode": "yolo"})])
    assert result.is_error
    assert (project / "keep.txt").exists() and not server.requests


def test_progress_reports_each_tool_call_while_it_runs(server, project, axon_env):
    (project / "a.txt").write_text("hello\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"})), tool_reply(("list_files", {})), text_reply("read it"))
    progress: list[tuple[float, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))

    async def main() -> Any:
        async with Client(serve(project, axon_env), read_timeout_seconds=120, mode=ERA) as c:
            return await c.call_tool("axon", {"prompt": "read a.txt", "cwd": str(project)},
                                     progress_callback=on_progress)
    result = asyncio.run(asyncio.wait_for(main(), 180))
    assert text(result) == "read it"
    assert [v for v, _ in progress] == [1, 2]
    assert progress[0][1] is not None and progress[0][1].startswith("read_file")
    assert progress[1][1] is not None and progress[1][1].startswith("list_files")


@pytest.mark.parametrize("action", ["decline", "accept"])
def test_on_the_newest_protocol_the_question_travels_in_the_call_and_its_retry(server, project, axon_env, action):
    """Protocol 2026-07-28 (the client's default): the call comes back input-required, the client asks
    its user and retries; declined, nothing happens; accepted, the command runs."""
    (project / "target.txt").write_text("precious\n")
    server.add(tool_reply(("bash", {"command": "rm target.txt"})), text_reply("finished"))
    asked: list[str] = []

    async def answer(context: Any, params: Any) -> Any:
        asked.append(params.message)
        return t.ElicitResult(action=action, content={"approve": True} if action == "accept" else None)

    async def main() -> Any:
        async with Client(serve(project, axon_env), read_timeout_seconds=120, elicitation_callback=answer) as c:
            return await c.call_tool("axon", {"prompt": "delete target.txt", "cwd": str(project)})
    result = asyncio.run(asyncio.wait_for(main(), 180))
    assert len(asked) == 1 and "rm target.txt" in asked[0]
    assert text(result) == "finished" and result.structured_content["stop_reason"] == "final"
    assert (project / "target.txt").exists() == (action == "decline")
    assert server.requests[1].messages[-1]["content"].startswith("Permission denied") == (action == "decline")


def test_an_untrusted_folder_keeps_its_widening_settings_waiting(server, project, axon_env):
    (project / ".axon").mkdir()
    (project / ".axon" / "permissions.toml").write_text('allow = ["bash(rm *)"]\n')
    (project / "keep.txt").write_text("precious\n")
    server.add(tool_reply(("bash", {"command": "rm keep.txt"})), text_reply("could not"))
    talk(serve(project, axon_env), [("axon", {"prompt": "delete keep.txt", "cwd": str(project)})])
    assert (project / "keep.txt").read_text() == "precious\n"


def test_axon_calls_axon_through_its_mcp_json(server, project, run_axon):
    """One axon's model calls ``mcp__axon__axon``; the inner axon (``axon mcp-server`` from the project's
    ``.mcp.json``) runs its own session against the same scripted endpoint and writes the file."""
    command = axon_command()
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"axon": {
        "command": command[0], "args": [*command[1:], "mcp-server", "--mode", "accept-edits"],
        "env": {"OPENAI_BASE_URL": server.url, "AXON_MODEL": "test-model"}}}}))
    server.add(tool_reply(("tool_search", {"query": "axon"})),                    # MCP tools start deferred
               tool_reply(("mcp__axon__axon", {"prompt": "write hello.txt", "cwd": str(project),
                                               "mode": "accept-edits"})),
               tool_reply(("write_file", {"path": "hello.txt", "content": "hi\n"})),   # the inner session
               text_reply("inner: wrote hello.txt"),
               text_reply("outer: the other agent wrote it"))
    r = run_axon("run", "ask the other agent to write hello.txt", "--yes", env={"AXON_TRUST": "1"}, timeout=180)
    assert r.code == 0, r.stderr
    assert (project / "hello.txt").read_text() == "hi\n"
    assert r.stdout == "outer: the other agent wrote it\n"
    outer_result = server.requests[4].messages[-1]
    assert outer_result["role"] == "tool" and "inner: wrote hello.txt" in outer_result["content"]


def test_a_cancelled_call_stops_the_turn_and_the_session_goes_on(server, project, axon_env):
    """The client cancels while a command runs: the command is killed (it never reaches its second
    touch), its call is answered, and ``axon-reply`` continues the same session."""
    token = f"late-{uuid.uuid4().hex}"
    server.add(tool_reply(("bash", {"command": f"touch started && sleep 60 && touch {token}"})),
               text_reply("after the cancel"))
    results: dict[str, Any] = {}

    async def main() -> None:
        async with Client(serve(project, axon_env), read_timeout_seconds=120, mode=ERA) as c:
            call = asyncio.ensure_future(c.call_tool("axon", {"prompt": "run it", "cwd": str(project)}))
            deadline = asyncio.get_running_loop().time() + 60
            while not (project / "started").exists():
                assert asyncio.get_running_loop().time() < deadline and not call.done()
                await asyncio.sleep(0.05)
            call.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await call
            [sid] = [p.stem for p in (project / ".axon" / "sessions").glob("*.jsonl") if "." not in p.stem]
            results["reply"] = await c.call_tool("axon-reply", {"session_id": sid, "prompt": "go on"})
    asyncio.run(asyncio.wait_for(main(), 180))
    reply = results["reply"]
    assert text(reply) == "after the cancel" and not reply.is_error
    answered = [m for m in server.requests[1].conversation if m["role"] == "tool"]
    assert len(answered) == 1 and "interrupted" in answered[0]["content"]
    deadline = time.monotonic() + 20                     # the command's processes are gone
    while running(token):
        assert time.monotonic() < deadline, f"still running: {token}"
        time.sleep(0.1)
    assert not (project / token).exists()


def running(needle: str) -> bool:
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and needle.encode() in (entry / "cmdline").read_bytes():
                return True
        except OSError:
            continue
    return False
