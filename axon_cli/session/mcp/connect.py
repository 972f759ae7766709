"""Opening one MCP connection: the transport (stdio subprocess, streamable HTTP or SSE) and the
SDK's client, with axon's answers to the server's own requests (roots, elicitation).

The initialize handshake is used with every server (``mode="legacy"``): it is the one every server
speaks, and the one in which a server may ask the client (``roots/list``, ``elicitation/create``)
on every transport.
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from axon_cli.machinery.sandbox import outside
from axon_cli.machinery.sandbox.child_env import child_env
from axon_cli.machinery.sandbox.outside import Launch, OutsideGate
from axon_cli.session.mcp.asks import Asker, elicitation_callback, roots_callback
from axon_cli.session.mcp.server_state import ServerState

__all__ = ["connect", "server_launch"]


def server_launch(st: ServerState) -> Launch:
    """What the gate is shown for a stdio server: its argv, cwd and variables. It is never asked about
    while the session starts: one it cannot let run is not started, with one line saying why."""
    cfg = st.entry.config
    return Launch("mcp_server", f'MCP server "{st.name}"', argv=(cfg.command or "", *cfg.args),
                  cwd=Path(cfg.cwd) if cfg.cwd else None, env=dict(cfg.env or {}), may_ask=False)


@asynccontextmanager
async def connect(st: ServerState, roots: list[Path], asker_now: Callable[[], Asker | None],
                  gate: OutsideGate | None = None) -> AsyncIterator[Any]:
    """A stdio server starts only when the session's ``OutsideGate`` lets it run outside (it knows
    every project file the server runs and none changed); else the connection fails saying why."""
    from mcp import Client

    cfg = st.entry.config
    async with AsyncExitStack() as stack:
        if st.entry.transport == "stdio":
            from mcp.client.stdio import StdioServerParameters

            if st.errlog is not None:
                st.errlog.close()
            st.errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115 (closed by the manager)
            params = StdioServerParameters(command=cfg.command or "", args=cfg.args, env={**child_env(), **cfg.env},
                                           cwd=cfg.cwd)
            gate = gate or OutsideGate(roots[0] if roots else Path.cwd())
            transport: Any = outside.stdio_client(params, gate.decide(server_launch(st)), errlog=st.errlog)
        elif st.entry.transport == "sse":
            from mcp.client.sse import sse_client

            transport = sse_client(cfg.url or "", headers=cfg.headers or None)
        else:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            http = await stack.enter_async_context(httpx2.AsyncClient(
                headers=cfg.headers, timeout=httpx2.Timeout(30.0, read=300.0)))
            transport = streamable_http_client(cfg.url or "", http_client=http)
        client = Client(transport, mode="legacy", list_roots_callback=roots_callback(roots),
                        elicitation_callback=elicitation_callback(st.name, asker_now))
        yield await stack.enter_async_context(client)
