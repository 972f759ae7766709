"""axon's version, read by ``--version``, the help cache, ACP, the MCP server and packaging."""

__version__ = "0.1.0"
