"""Everything a user or another program talks to: the ``axon`` entry point (``entry``), the REPL and
``axon run`` (``ui``), ACP (``acp``), the MCP server (``mcp_server``), the Python SDK (``sdk``),
the report commands (``reports``), OpenTelemetry (``telemetry``), Harbor and the GitHub Action
(``fleet``).
"""
