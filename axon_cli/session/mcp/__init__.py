"""MCP (Model Context Protocol) servers: their config, connections and tools (``axon mcp list`` is
``app/reports/mcp.py``).

Importing this package imports nothing else (``names`` is read by the permission policy, which
must stay light); the ``mcp`` SDK is imported only when a server starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from axon_cli.session.mcp.session_servers import Bus, McpSession
    from axon_cli.settings.config import LoadedSettings
    from axon_cli.tools.registry import ToolRegistry

__all__ = ["start_mcp", "McpSession"]


def start_mcp(loaded: LoadedSettings, project_root: Path, registry: ToolRegistry, bus: Bus,
              gate: Any = None) -> McpSession | None:
    """``session.start_mcp``: start connecting the configured MCP servers; None when there are none,
    and then nothing of MCP is imported (no ``mcp_servers`` setting and no ``.mcp.json``)."""
    from axon_cli.settings.trust.widening import MCP_JSON

    if not loaded.settings.mcp_servers and not (project_root / MCP_JSON).is_file():
        return None
    from axon_cli.session.mcp import session_servers as session

    return session.start_mcp(loaded, project_root, registry, bus, gate)


def __getattr__(name: str) -> Any:
    if name == "McpSession":
        from axon_cli.session.mcp import session_servers as session

        return getattr(session, name)
    raise AttributeError(name)
