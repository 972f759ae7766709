"""MCP in a running session: start the configured servers, register their tools, report failures.

``start_mcp`` returns at once (servers connect in the background, in parallel);
``McpSession.wait_and_register`` waits for them (bounded by each server's ``startup_timeout``) and
registers every listed tool as a deferred ``mcp__SERVER__TOOL`` spec. A server that fails becomes one
``Notice`` line, delivered when the first turn starts (frontends subscribe after the runtime is
built), and axon carries on without it; so does a restart. The project folder is every server's
root; a server's elicitation is asked through the approver (``bind_approver``): the REPL asks the
user, an approver that cannot ask declines.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from axon_cli.kernel.events import (
    Event,
    EventSink,
    InputAnswer,
    InputRequest,
    Notice,
    TurnStarted,
    ask_user_input,
)
from axon_cli.settings.config import LoadedSettings
from axon_cli.settings.mcp_servers import load_servers
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext, ToolOutput

if TYPE_CHECKING:   # the client (asyncio, the mcp SDK's wiring) loads only when a server is configured
    from axon_cli.session.mcp.client import McpManager

__all__ = ["McpSession", "start_mcp"]


class Bus(Protocol):
    def __call__(self, event: Event) -> None: ...

    def subscribe(self, sink: EventSink) -> None: ...


class McpSession:
    def __init__(self, manager: McpManager, registry: ToolRegistry, bus: Bus, problems: list[str]) -> None:
        self.manager = manager
        self.registry = registry
        self.bus = bus
        self.pending: list[str] = list(problems)
        self.registered: list[str] = []
        self._registered_once = False
        self._lock = threading.Lock()
        self._approver: Callable[[], object] = lambda: None
        manager.asker = self._ask
        manager.notify = self._notice
        bus.subscribe(self._on_event)

    def bind_approver(self, approver: Callable[[], object]) -> None:
        """Where elicitations are asked: the approver in use when one arrives."""
        self._approver = approver

    def _ask(self, request: InputRequest) -> InputAnswer:
        answer = ask_user_input(self._approver(), request)
        if answer.action != "accept" and answer.message:
            done = {"decline": "declined", "cancel": "cancelled"}[answer.action]
            self._notice(f"{request.source} asked: {request.message[:120]} — {done} ({answer.message})")
        return answer

    def _notice(self, line: str) -> None:
        self.bus(Notice(message=line))

    def wait_and_register(self) -> list[str]:
        """Wait for the servers, then register the tools of each connected one. Idempotent."""
        if self._registered_once:
            return self.registered
        self._registered_once = True
        from axon_cli.session.mcp.remote_tools import make_spec

        self.manager.wait_ready()
        for st in self.manager.servers.values():
            if st.status == "disabled":
                continue
            if st.status != "connected":
                self.pending.append(f"MCP server '{st.name}' failed: {st.error}")
                continue
            timeout = st.entry.config.timeout
            for remote in st.tools:
                spec = make_spec(st.name, remote, self._call, timeout)
                if self.registry.get(spec.name) is not None:
                    self.pending.append(f"MCP tool {remote.name!r} of server '{st.name}' skipped: "
                                        f"the name {spec.name} is taken")
                    continue
                self.registry.register(spec)
                self.registered.append(spec.name)
        return self.registered

    def _call(self, server: str, tool: str, arguments: dict[str, Any], timeout: float,
              ctx: ToolContext) -> ToolOutput:
        return self.manager.call(server, tool, arguments, timeout=timeout, cancel=ctx.cancel)

    def _on_event(self, event: Event) -> None:
        if not isinstance(event, TurnStarted):
            return
        with self._lock:
            lines, self.pending = self.pending, []
        for line in lines:
            self.bus(Notice(message=line))

    def close(self) -> None:
        self.manager.close()


def start_mcp(loaded: LoadedSettings, project_root: Path, registry: ToolRegistry, bus: Bus,
              gate: Any = None) -> McpSession | None:
    """Start connecting the configured MCP servers; None when there are none (nothing is imported)."""
    entries, problems = load_servers(loaded, project_root)
    if not entries and not problems:
        return None
    from axon_cli.session.mcp.client import McpManager

    return McpSession(McpManager(entries, roots=[project_root], gate=gate).start(), registry, bus, problems)
