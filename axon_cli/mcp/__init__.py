"""MCP (Model Context Protocol) servers: their config, connections and tools (``axon mcp list`` is
``reports/mcp.py``).

Importing this package does not import the ``mcp`` SDK; that happens only when a server starts.
"""

from __future__ import annotations

from axon_cli.mcp.session import McpSession, start_mcp

__all__ = ["start_mcp", "McpSession"]
