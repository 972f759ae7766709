"""A small real MCP server (stdio) for axon's tests, written with the mcp SDK.

Tools: add, echo, slow, fail, big, leak_secret, crash, roots, ask_name, image, resource_image.
Run with ``python demo_server.py``. An optional first argument ``http PORT`` serves streamable HTTP on
127.0.0.1 instead of stdio.

With ``DEMO_LOG`` set, the server appends one JSON line to that file for each thing a test asserts on:
``{"event": "start", "pid": …}`` when it starts, what ``roots/list`` and an elicitation answered.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import time
from pathlib import Path

try:  # mcp 2.x
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as MCPServer  # type: ignore[no-redef]
    from mcp.server.fastmcp.exceptions import ToolError  # type: ignore[no-redef]
from mcp.types import BlobResourceContents, EmbeddedResource, ImageContent, TextContent, ToolAnnotations
from pydantic import BaseModel

try:  # mcp 2.x
    from mcp.server.mcpserver import Context
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import Context  # type: ignore[no-redef]

server = MCPServer("demo")
# A 1x1 red PNG.
PIXEL = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==")


def note(**fields: object) -> None:
    """One JSON line in the file named by DEMO_LOG (nothing without it)."""
    path = os.environ.get("DEMO_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(fields) + "\n")


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


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
async def roots(ctx: Context) -> str:  # type: ignore[type-arg]
    """List the client's roots (the folders it lets this server work in)."""
    result = await ctx.session.list_roots()
    uris = [str(r.uri) for r in result.roots]
    note(event="roots", uris=uris)
    return "\n".join(uris)


class Name(BaseModel):
    name: str


@server.tool()
async def ask_name(ctx: Context) -> str:  # type: ignore[type-arg]
    """Ask the user for a name (an elicitation) and greet them."""
    answer = await ctx.elicit("What name shall I use?", Name)
    data = answer.data.model_dump() if answer.action == "accept" and answer.data is not None else None
    note(event="elicit", action=answer.action, data=data)
    return f"hello {data['name']}" if data else f"no name ({answer.action})"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def image() -> list[object]:
    """Return a small PNG picture and a caption (the file DEMO_IMAGE names instead, when set)."""
    picture = Path(os.environ["DEMO_IMAGE"]).read_bytes() if os.environ.get("DEMO_IMAGE") else PIXEL
    return [TextContent(type="text", text="a red pixel"),
            ImageContent(type="image", data=base64.b64encode(picture).decode(), mime_type="image/png")]


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def resource_image() -> list[object]:
    """Return a PNG picture as an embedded resource."""
    blob = BlobResourceContents(uri="file:///pixel.png", mime_type="image/png", blob=base64.b64encode(PIXEL).decode())
    return [EmbeddedResource(type="resource", resource=blob)]


if __name__ == "__main__":
    note(event="start", pid=os.getpid())
    if len(sys.argv) >= 3 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
