"""MCP (Model Context Protocol) servers: their config, connections and tools (``axon mcp list`` is
``reports/mcp.py``).

Importing this package imports nothing else (``names`` is read by the permission policy, which
must stay light); the ``mcp`` SDK is imported only when a server starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from axon_cli.mcp.session import McpSession, start_mcp

__all__ = ["start_mcp", "McpSession"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from axon_cli.mcp import session

        return getattr(session, name)
    raise AttributeError(name)
