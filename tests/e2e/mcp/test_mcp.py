"""MCP against a real server process (tests/mcp_servers/demo_server.py): config merge, specs, dispatch."""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from axon_cli.kernel.events import Event, Notice, ToolCallBegin, TurnStarted
from axon_cli.session.mcp.client import McpManager
from axon_cli.session.mcp.remote_tools import make_spec, tool_name
from axon_cli.session.mcp.session_servers import McpSession
from axon_cli.session.runtime.opening import EventBus
from axon_cli.settings.config import McpServerConfig, Settings, load_settings
from axon_cli.settings.mcp_servers import ServerEntry, expand_vars, load_servers
from axon_cli.tools.dispatch import INTERRUPTED, Dispatcher, ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext, ToolError

DEMO = str(Path(__file__).resolve().parents[2] / "mcp_servers" / "demo_server.py")


def demo_entry(name: str = "test", **cfg: Any) -> ServerEntry:
    return ServerEntry(name, McpServerConfig(command=sys.executable, args=[DEMO], **cfg), "test")


@pytest.fixture(scope="module")
def manager() -> Iterator[McpManager]:
    mgr = McpManager([demo_entry()]).start()
    mgr.wait_ready()
    assert mgr.servers["test"].status == "connected", mgr.servers["test"].error
    yield mgr
    mgr.close()


@pytest.fixture
def rig(manager: McpManager, tmp_path: Path) -> Iterator[tuple[Dispatcher, list[Event], ToolContext]]:
    """A registry with the demo server's tools (all activated) and a real dispatcher."""
    registry, bus, events = ToolRegistry(), EventBus(), []
    bus.subscribe(events.append)
    session = McpSession(manager, registry, bus, [])
    registry.activate(session.wait_and_register())
    ctx = ToolContext(project_root=tmp_path, state_dir=tmp_path / ".axon", session_id="s1",
                      settings=Settings(), emit=bus, registry=registry)
    yield Dispatcher(registry, ctx, emit=bus), events, ctx


def call(d: Dispatcher, name: str, args: dict[str, Any] | str, call_id: str = "c1") -> Any:
    return d.dispatch(ToolCall(call_id, name, args if isinstance(args, str) else json.dumps(args)))


# -- config -------------------------------------------------------------------------------------
def test_mcp_json_and_config_merge_config_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    root = tmp_path / "p"
    (root / ".axon").mkdir(parents=True)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "shared": {"command": "from-json"},
        "jsononly": {"type": "stdio", "command": "srv", "args": ["--token", "${TOK}"],
                     "env": {"A": "${TOK}", "B": "${NOPE:-fallback}"}},
        "bad": {"args": ["x"]},
        "web": {"type": "sse", "url": "http://127.0.0.1:1/events"}}}))
    (root / ".axon" / "config.toml").write_text(
        '[mcp_servers.shared]\ncommand = "from-config"\ncwd = "tools"\n'
        '[mcp_servers.remote]\nurl = "http://127.0.0.1:9/mcp"\nheaders = { Authorization = "Bearer ${TOK}" }\n')
    entries, problems = load_servers(load_settings(root, env={"AXON_TRUST": "1"}), root, env={"TOK": "t0k"})
    by_name = {e.name: e for e in entries}
    assert set(by_name) == {"shared", "jsononly", "web", "remote"}
    assert by_name["shared"].config.command == "from-config"
    assert by_name["shared"].source == str(root / ".axon" / "config.toml")
    assert by_name["shared"].config.cwd == str(root / "tools")
    assert by_name["jsononly"].config.args == ["--token", "t0k"]
    assert by_name["jsononly"].config.env == {"A": "t0k", "B": "fallback"}
    assert by_name["jsononly"].source == str(root / ".mcp.json")
    assert (by_name["web"].transport, by_name["remote"].transport) == ("sse", "http")
    assert by_name["remote"].config.headers == {"Authorization": "Bearer t0k"}
    assert problems == [f"{root / '.mcp.json'}: MCP server 'bad' needs exactly one of 'command' or 'url'"]


def test_invalid_mcp_json_is_one_problem_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    (tmp_path / ".mcp.json").write_text("{not json")
    entries, problems = load_servers(load_settings(tmp_path, env={}), tmp_path)
    assert entries == [] and len(problems) == 1 and "invalid JSON" in problems[0]


def test_expand_vars() -> None:
    env = {"A": "1", "E": ""}
    assert expand_vars("x${A}y${B}z${E:-d}${A:-no}", env) == "x1yzd1"


def test_tool_name_is_sanitised_and_capped() -> None:
    assert tool_name("time", "get_current_time") == "mcp__time__get_current_time"
    assert tool_name("my server", "get.file/v2") == "mcp__my_server__get_file_v2"
    long_a, long_b = tool_name("s" * 40, "t" * 40), tool_name("s" * 40, "t" * 39 + "u")
    assert len(long_a) == 64 and len(long_b) == 64 and long_a != long_b
    assert long_a == tool_name("s" * 40, "t" * 40)            # the same on every run
    assert long_a.startswith("mcp__" + "s" * 40 + "__") and re.fullmatch(r"[A-Za-z0-9_-]+", long_a)


# -- specs --------------------------------------------------------------------------------------
def test_specs_carry_the_servers_schema_and_hints(manager: McpManager) -> None:
    remote = {t.name: t for t in manager.servers["test"].tools}
    assert set(remote) == {"add", "echo", "slow", "fail", "big", "leak_secret", "crash", "roots", "ask_name", "image",
                           "resource_image"}
    add = make_spec("test", remote["add"], lambda *a: None, 60.0)  # type: ignore[arg-type, return-value]
    assert add.name == "mcp__test__add" and add.deferred and add.source == "mcp:test" and add.category == "other"
    assert add.json_schema() == remote["add"].input_schema
    assert add.openai_tool()["function"]["parameters"]["required"] == ["a", "b"]
    assert add.description == "Add two integers and return the sum."
    inp = add.input_model.model_validate({"a": 1, "b": 2})
    assert (add.is_read_only(inp), add.is_destructive(inp), add.concurrency_safe(inp)) == (False, True, False)
    echo = make_spec("test", remote["echo"], lambda *a: None, 60.0)  # type: ignore[arg-type, return-value]
    inp = echo.input_model.model_validate({"text": "hi"})
    assert (echo.is_read_only(inp), echo.is_destructive(inp), echo.concurrency_safe(inp)) == (True, False, True)


def test_deferred_until_activated(manager: McpManager) -> None:
    registry = ToolRegistry()
    session = McpSession(manager, registry, EventBus(), [])
    names = session.wait_and_register()
    assert "mcp__test__add" in names and registry.active() == []
    assert [s.name for s in registry.deferred()] == names


# -- calls through the real dispatcher -------------------------------------------------------------
def test_call_returns_the_result(rig: Any) -> None:
    d, events, _ = rig
    res = call(d, "mcp__test__add", {"a": 2, "b": 3})
    assert res.ok and res.content == "5"


def test_tool_error_comes_back_as_error(rig: Any) -> None:
    d, _, _ = rig
    res = call(d, "mcp__test__fail", {"reason": "disk on fire"})
    assert not res.ok
    assert res.content.startswith("Error:") and "disk on fire" in res.content


def test_schema_violation_is_a_validation_error(rig: Any) -> None:
    d, _, _ = rig
    res = call(d, "mcp__test__add", {"a": "x"})
    assert not res.ok
    assert "validation error" in res.content
    assert "'x' is not of type 'integer'" in res.content and "'b' is a required property" in res.content


def test_secret_is_masked(rig: Any) -> None:
    d, events, _ = rig
    res = call(d, "mcp__test__leak_secret", {})
    assert res.ok and "sk-proj-" not in res.content and "[REDACTED]" in res.content
    assert all("sk-proj-" not in e.to_json() for e in events)


def test_big_output_is_governed(rig: Any) -> None:
    d, _, _ = rig
    res = call(d, "mcp__test__big", {"lines": 5000})
    assert res.ok and res.truncated and len(res.content) < 60_000
    assert res.spill_path and Path(res.spill_path).read_text().count("\n") == 4999


def test_timeout_then_server_still_usable(manager: McpManager, tmp_path: Path) -> None:
    remote = next(t for t in manager.servers["test"].tools if t.name == "slow")
    registry = ToolRegistry([make_spec("test", remote, lambda s, t, a, timeout, ctx: manager.call(
        s, t, a, timeout=timeout, cancel=ctx.cancel), 0.3)])
    registry.activate(["mcp__test__slow"])
    ctx = ToolContext(project_root=tmp_path, state_dir=tmp_path / ".axon", session_id="s", settings=Settings())
    res = Dispatcher(registry, ctx).dispatch(ToolCall("c", "mcp__test__slow", '{"seconds": 20}'))
    assert not res.ok and res.content == "Error: slow on MCP server 'test' timed out after 0.3 s"
    out = manager.call("test", "add", {"a": 1, "b": 1}, timeout=30, cancel=threading.Event())
    assert out.text == "2"


def test_cancel_interrupts_a_running_call(rig: Any) -> None:
    d, events, ctx = rig
    box: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: box.update(res=call(d, "mcp__test__slow", {"seconds": 30})))
    worker.start()
    deadline = time.monotonic() + 30
    while not any(isinstance(e, ToolCallBegin) for e in events) and time.monotonic() < deadline:
        time.sleep(0.01)
    ctx.cancel.set()
    worker.join(30)
    assert not worker.is_alive() and box["res"].content == INTERRUPTED
    ctx.cancel.clear()
    assert call(d, "mcp__test__echo", {"text": "still here"}, "c2").content == "still here"


# -- failures ----------------------------------------------------------------------------------------
def test_server_dying_mid_session_is_an_error_with_its_stderr() -> None:
    mgr = McpManager([demo_entry("dying")]).start()
    try:
        mgr.wait_ready()
        with pytest.raises(ToolError) as err:
            mgr.call("dying", "crash", {}, timeout=30, cancel=threading.Event())
        assert str(err.value) == ("MCP server 'dying': Connection closed (stderr: fatal: out of cheese); "
                                  "it is started again on the next call")
    finally:
        mgr.close()


def test_failures_are_one_line_notices_on_first_turn(tmp_path: Path) -> None:
    entries = [ServerEntry("ghost", McpServerConfig(command="no-such-command-axon-test"), "x"),
               ServerEntry("mute", McpServerConfig(command=sys.executable, startup_timeout=0.5,
                                                   args=["-c", "import sys; sys.stdin.read()"]), "x")]
    bus, events = EventBus(), []
    session = McpSession(McpManager(entries).start(), ToolRegistry(), bus, ["a problem line"])
    bus.subscribe(events.append)
    try:
        assert session.wait_and_register() == []
        assert events == []
        bus(TurnStarted(turn=1))
    finally:
        session.close()
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert notices == ["a problem line",
                       "MCP server 'ghost' failed: command not found: no-such-command-axon-test",
                       "MCP server 'mute' failed: did not start within 0.5 s"]
    assert isinstance(events[-1], TurnStarted)
