"""One MCP server's state as the manager keeps it, and small helpers about its connection."""

from __future__ import annotations

import asyncio
import os
import threading
from dataclasses import dataclass, field
from typing import IO, Any, Literal

from axon_cli.session.mcp.convert import RemoteTool, remote_tool
from axon_cli.settings.mcp_servers import ServerEntry

__all__ = ["ServerState", "Status", "leaf", "list_tools", "connection_lost", "transport_closed", "MAX_TOOL_PAGES"]

Status = Literal["connecting", "connected", "failed", "closed", "disabled"]
MAX_TOOL_PAGES = 50
_LOST = ("ClosedResourceError", "BrokenResourceError", "EndOfStream", "ConnectError", "RemoteProtocolError",
         "ReadError")


@dataclass
class ServerState:
    entry: ServerEntry
    status: Status = "connecting"
    error: str = ""
    tools: list[RemoteTool] = field(default_factory=list)
    ready: threading.Event = field(default_factory=threading.Event)
    client: Any = None                 # the SDK's Client, only touched on the loop thread
    stop: asyncio.Event | None = None
    scope: Any = None                  # the anyio CancelScope around the connection
    errlog: IO[str] | None = None      # the server's stderr (stdio servers)
    run: Any = None                    # the concurrent Future of its connection task
    connected_once: bool = False
    died: bool = False                 # a call found the connection gone
    restarts: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def name(self) -> str:
        return self.entry.name

    def stderr_tail(self) -> str:
        """The last non-empty line the server wrote to stderr (read without moving its offset)."""
        if self.errlog is None:
            return ""
        try:
            fd = self.errlog.fileno()
            size = os.fstat(fd).st_size
            tail = os.pread(fd, 2048, max(0, size - 2048)).decode("utf-8", "replace")
        except (OSError, ValueError, AttributeError):   # AttributeError: no os.pread (Windows)
            return ""
        lines = [ln.strip() for ln in tail.splitlines() if ln.strip()]
        return lines[-1][:200] if lines else ""

    def gone(self) -> bool:
        """Whether a server that was connected has stopped (its process died, its connection closed)."""
        if not self.connected_once:
            return False
        return self.died or self.status == "failed" or (self.status == "connected" and transport_closed(self.client))


def leaf(exc: BaseException) -> BaseException:
    """The first real exception inside (nested) exception groups."""
    while True:
        inner = getattr(exc, "exceptions", None)
        if not inner:
            return exc
        exc = inner[0]


def connection_lost(exc: BaseException) -> bool:
    """Whether a call failed because the connection to the server is gone (not because of the tool)."""
    found = leaf(exc)
    return type(found).__name__ in _LOST or str(found).strip().lower() == "connection closed"


def transport_closed(client: Any) -> bool:
    """Whether the client's connection has already ended (the SDK's dispatcher says so); False
    when that cannot be told."""
    dispatcher = getattr(getattr(client, "session", None), "_dispatcher", None)
    return bool(getattr(dispatcher, "_closed", False))


async def list_tools(client: Any, entry: ServerEntry) -> list[RemoteTool]:
    """The server's tools that its ``enabled_tools``/``disabled_tools`` let through."""
    tools: list[RemoteTool] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(remote_tool(t) for t in page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return [t for t in tools if entry.config.offers(t.name)]
