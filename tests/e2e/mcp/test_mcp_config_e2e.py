"""End-to-end: Codex's ``[mcp_servers.NAME]`` keys and Claude Code's ``.mcp.json`` forms through the
real ``axon``; an elicitation answered through the approver; a server killed while idle."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

from axon_cli.kernel.events import InputAnswer, InputRequest, Notice
from axon_cli.session.mcp.client import McpManager
from axon_cli.session.mcp.session_servers import McpSession
from axon_cli.session.runtime.opening import EventBus
from axon_cli.settings.config import McpServerConfig
from axon_cli.settings.mcp_servers import ServerEntry
from axon_cli.tools.registry import ToolRegistry
from tests.e2e.mcp.test_mcp_client_e2e import activate, events
from tests.e2e.mcp.test_mcp_e2e import DEMO, TRUSTED, tool_messages
from tests.fakeserver import text_reply, tool_reply


def codex_config(project: Path, log: Path) -> None:
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text(f"""
[mcp_servers.test]
command = "{sys.executable}"
args = ["{DEMO}"]
cwd = "{project.parent}"
startup_timeout_sec = 20
tool_timeout_sec = 0.5
enabled_tools = ["add", "slow", "echo"]
disabled_tools = ["echo"]
required = true
no_such_key = 1

[mcp_servers.test.env]
DEMO_LOG = "{log}"

[mcp_servers.off]
command = "{sys.executable}"
args = ["{DEMO}", "--never-started"]
enabled = false
""")


def test_codex_keys_are_honoured_and_unknown_keys_only_warn(server, run_axon, project):
    log = project.parent / "demo-log.jsonl"
    codex_config(project, log)
    server.add(activate("mcp__test__slow", "mcp__test__add"),
               tool_reply(("mcp__test__slow", {"seconds": 20}), ("mcp__test__add", {"a": 1, "b": 2})),
               text_reply("done"))
    r = run_axon("run", "go", "--yes", "--output-format", "stream-json", env=TRUSTED, timeout=90)
    assert r.code == 0, r.stderr
    results = tool_messages(server.requests[2].messages)
    assert results["call_2_0"] == "Error: slow on MCP server 'test' timed out after 0.5 s"   # tool_timeout_sec
    assert results["call_2_1"] == "3"
    system = server.requests[0].messages[0]["content"]
    assert "mcp__test__add" in system and "mcp__test__echo" not in system and "mcp__test__big" not in system
    assert "mcp__off__" not in system
    assert len(events(log, "start")) == 1                        # env reached the server; 'off' never started
    notices = [e["message"] for e in map(json.loads, r.stdout.splitlines()) if e["type"] == "notice"]
    unused = [n for n in notices if "is not used by axon" in n]
    assert len(unused) == 2 and any("'required'" in n for n in unused) and any("'no_such_key'" in n for n in unused)
    listing = run_axon("mcp", env=TRUSTED, timeout=90)           # bare `axon mcp` lists the servers
    assert listing.code == 0, listing.stderr
    assert "status: connected, 2 tools" in listing.stdout and "status: disabled" in listing.stdout


def test_claude_code_mcp_json_http_form(run_axon, project, http_server):
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "web": {"type": "http", "url": http_server, "headers": {"X-Team": "core"}}}}))
    r = run_axon("tools", env=TRUSTED, timeout=90)
    assert r.code == 0, r.stderr
    assert "  web: 11 tools" in r.stdout and "    mcp__web__add " in r.stdout


class ScriptedAsker:
    """An approver that answers elicitations (as the REPL's does once the user typed)."""

    def __init__(self) -> None:
        self.asked: list[InputRequest] = []

    def ask_input(self, request: InputRequest) -> InputAnswer:
        self.asked.append(request)
        return InputAnswer(action="accept", values={"name": "Ada"})


def _session(log: Path, tmp_path: Path) -> tuple[McpSession, list[object]]:
    entry = ServerEntry("test", McpServerConfig(command=sys.executable, args=[DEMO], env={"DEMO_LOG": str(log)}), "t")
    bus, seen = EventBus(), []
    bus.subscribe(seen.append)
    session = McpSession(McpManager([entry], roots=[tmp_path]).start(), ToolRegistry(), bus, [])
    session.wait_and_register()
    return session, seen


def test_elicitation_is_asked_through_the_approver(tmp_path):
    log = tmp_path / "log.jsonl"
    session, _ = _session(log, tmp_path)
    asker = ScriptedAsker()
    session.bind_approver(lambda: asker)
    try:
        out = session.manager.call("test", "ask_name", {}, timeout=30, cancel=threading.Event())
    finally:
        session.close()
    assert out.text == "hello Ada"
    assert events(log, "elicit") == [{"event": "elicit", "action": "accept", "data": {"name": "Ada"}}]
    assert asker.asked[0].source == "MCP server 'test'" and [f.name for f in asker.asked[0].fields] == ["name"]


def test_an_asker_bound_after_the_server_connected_is_still_asked(tmp_path):
    """Servers connect on their own thread while the session is built: the asker in force when the
    elicitation arrives is the one asked, however early the connection was (a CI run once declined)."""
    log = tmp_path / "log.jsonl"
    entry = ServerEntry("test", McpServerConfig(command=sys.executable, args=[DEMO], env={"DEMO_LOG": str(log)}), "t")
    manager = McpManager([entry], roots=[tmp_path]).start()
    manager.wait_ready(60)                                   # connected while no asker was bound
    assert manager.servers["test"].status == "connected"
    session = McpSession(manager, ToolRegistry(), EventBus(), [])
    asker = ScriptedAsker()
    session.bind_approver(lambda: asker)
    try:
        out = manager.call("test", "ask_name", {}, timeout=30, cancel=threading.Event())
    finally:
        session.close()
    assert out.text == "hello Ada" and len(asker.asked) == 1


def _alive(pid: int) -> bool:
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


def test_a_server_killed_while_idle_is_started_again_on_its_next_call(tmp_path):
    log = tmp_path / "log.jsonl"
    session, seen = _session(log, tmp_path)
    try:
        pid = events(log, "start")[0]["pid"]
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 20
        while _alive(pid):
            assert time.monotonic() < deadline, "the server did not die"
            time.sleep(0.05)
        # the client learns of the death from its reader (asynchronously); a call racing that is the
        # "died during a call" case, which is reported, not repeated — wait until it is known
        while not session.manager.servers["test"].gone():
            assert time.monotonic() < deadline, "the client never noticed that the server died"
            time.sleep(0.05)
        out = session.manager.call("test", "add", {"a": 2, "b": 2}, timeout=30, cancel=threading.Event())
    finally:
        session.close()
    assert out.text == "4"
    starts = events(log, "start")
    assert len(starts) == 2 and starts[1]["pid"] != pid
    assert any(isinstance(e, Notice) and "started it again" in e.message for e in seen)
