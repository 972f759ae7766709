"""``axon mcp-server``: axon as a stdio MCP server other agents call (tools ``axon`` and ``axon-reply``).

``server.py`` builds the server on the official ``mcp`` SDK; ``asking.py`` turns a call that asks into
an MCP elicitation (or a refusal when the client cannot be asked); each session is an
``axon_cli.app.sdk.Session``, so trust, sandbox, masking, modes and undo hold as in ``axon run``.
"""

from axon_cli.app.mcp_server.axon_tools import serve

__all__ = ["serve"]
