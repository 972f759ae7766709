"""A small real MCP server (stdio) for axon's tests, written with the mcp SDK.

Tools: add, echo, slow, fail, big, leak_secret, crash. Run with ``python demo_server.py``.
An optional first argument ``http PORT`` serves streamable HTTP on 127.0.0.1 instead of stdio.
"""

from __future__ import annotations

import os
import sys
import time

try:  # mcp 2.x
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as MCPServer  # type: ignore[no-redef]
    from mcp.server.fastmcp.exceptions import ToolError  # type: ignore[no-redef]
from mcp.types import ToolAnnotations

server = MCPServer("demo")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers and return the sum."""
    return a + b


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def echo(text: str) -> str:
    """Echo the text back unchanged."""
    return text


@server.tool()
def slow(seconds: float) -> str:
    """Sleep for the given number of seconds, then say done."""
    time.sleep(seconds)
    return f"slept {seconds}"


@server.tool()
def fail(reason: str = "broken on purpose") -> str:
    """Always fails with the given reason."""
    raise ToolError(reason)


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def big(lines: int = 5000) -> str:
    """Return a long text of numbered lines."""
    return "\n".join(f"line {i:05d} " + "x" * 40 for i in range(lines))


@server.tool()
def leak_secret() -> str:
    """Return a text containing an API key (to prove masking)."""
    return "the key is sk-proj-" + "A1b2C3d4E5" * 4 + " keep it safe"


@server.tool()
def crash() -> str:
    """Write a line to stderr and exit at once (a server dying mid-session)."""
    sys.stderr.write("fatal: out of cheese\n")
    sys.stderr.flush()
    os._exit(1)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
