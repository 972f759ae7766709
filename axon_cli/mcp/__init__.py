"""MCP (Model Context Protocol) servers: their config, connections, tools and ``axon mcp list``.

Importing this package does not import the ``mcp`` SDK; that happens only when a server starts.
"""

from __future__ import annotations

from axon_cli.mcp.listing import list_servers_text
from axon_cli.mcp.session import McpSession, start_mcp

__all__ = ["list_servers_text", "start_mcp", "McpSession"]
