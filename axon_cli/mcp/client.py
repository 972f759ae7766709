"""Connections to MCP servers: one asyncio event loop in a daemon thread holds every client session.

Each server runs in its own task: connect (stdio subprocess, streamable HTTP or SSE), list its
tools, then wait until ``close()``. A server that does not connect within its ``startup_timeout``
is cancelled and marked failed with a one-line reason. The rest of axon is synchronous: ``call()``
submits a tool call to the loop and waits, honouring a timeout and a cancel event.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import IO, Any, Literal

from axon_cli.mcp.convert import RemoteTool, remote_tool, result_output
from axon_cli.mcp.servers import ServerEntry, missing_command
from axon_cli.tools.spec import Cancelled, ToolError, ToolOutput

__all__ = ["McpManager", "ServerState", "Status"]

log = logging.getLogger("axon.mcp")
Status = Literal["connecting", "connected", "failed", "closed"]
MAX_TOOL_PAGES = 50
CLOSE_TIMEOUT = 6.0


@dataclass
class ServerState:
    entry: ServerEntry
    status: Status = "connecting"
    error: str = ""
    tools: list[RemoteTool] = field(default_factory=list)
    ready: threading.Event = field(default_factory=threading.Event)
    client: Any = None                 # the SDK's Client, only touched on the loop thread
    stop: asyncio.Event | None = None
    scope: Any = None                  # the anyio CancelScope around the connection
    errlog: IO[str] | None = None      # the server's stderr (stdio servers)

    @property
    def name(self) -> str:
        return self.entry.name

    def stderr_tail(self) -> str:
        """The last non-empty line the server wrote to stderr (read without moving its offset)."""
        if self.errlog is None:
            return ""
        try:
            fd = self.errlog.fileno()
            size = os.fstat(fd).st_size
            tail = os.pread(fd, 2048, max(0, size - 2048)).decode("utf-8", "replace")
        except (OSError, ValueError, AttributeError):   # AttributeError: no os.pread (Windows)
            return ""
        lines = [ln.strip() for ln in tail.splitlines() if ln.strip()]
        return lines[-1][:200] if lines else ""


class McpManager:
    def __init__(self, entries: list[ServerEntry]) -> None:
        self.servers: dict[str, ServerState] = {e.name: ServerState(e) for e in entries}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runs: list[concurrent.futures.Future[None]] = []
        self._closing = False

    # -- lifecycle -----------------------------------------------------------------------------
    def start(self) -> McpManager:
        """Start connecting every server in the background; returns at once."""
        for st in self.servers.values():
            missing = missing_command(st.entry)
            if missing:
                self._fail(st, missing)
        if all(st.status == "failed" for st in self.servers.values()):
            return self            # nothing to connect: the SDK is not even imported
        try:
            import mcp  # noqa: F401
        except ImportError:
            for st in self.servers.values():
                self._fail(st, "the 'mcp' Python package is not installed (pip install 'mcp>=2.3')")
            return self
        for name in ("mcp", "httpx2", "httpx"):
            logging.getLogger(name).addHandler(logging.NullHandler())  # no stray log lines on stderr
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._thread = threading.Thread(target=self._run_loop, name="axon-mcp", daemon=True)
        self._thread.start()
        for st in self.servers.values():
            if st.status == "connecting":
                self._runs.append(asyncio.run_coroutine_threadsafe(self._serve(st), loop))
        return self

    def _run_loop(self) -> None:
        assert self._loop is not None
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    def wait_ready(self, timeout: float | None = None) -> None:
        """Block until every server is connected or failed (each is bounded by its startup_timeout)."""
        limit = timeout if timeout is not None else max(
            (st.entry.config.startup_timeout for st in self.servers.values()), default=0) + 2.0
        deadline = time.monotonic() + limit
        for st in self.servers.values():
            if not st.ready.wait(max(0.0, deadline - time.monotonic())):
                self._fail(st, f"did not start within {limit:g} s")

    def close(self) -> None:
        """Stop every server (stdio servers get their stdin closed, then a signal) and the loop."""
        loop = self._loop
        if loop is None or self._closing:
            return
        self._closing = True
        loop.call_soon_threadsafe(self._stop_all)
        deadline = time.monotonic() + CLOSE_TIMEOUT
        for run in self._runs:
            try:
                run.result(max(0.0, deadline - time.monotonic()))
            except Exception:   # timed out, cancelled or failed: the process is stopped regardless
                log.debug("MCP server task did not end cleanly", exc_info=True)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(2.0)
        for st in self.servers.values():
            if st.errlog is not None:
                st.errlog.close()

    def _stop_all(self) -> None:  # on the loop thread
        for st in self.servers.values():
            if st.stop is not None:
                st.stop.set()
            if st.scope is not None and st.status == "connecting":
                st.scope.cancel()

    def _fail(self, st: ServerState, reason: str) -> None:
        if st.status in ("connecting", "connected"):
            st.status, st.error = "failed", reason
        st.ready.set()

    # -- one server's life (on the loop thread) --------------------------------------------------
    async def _serve(self, st: ServerState) -> None:
        import anyio

        if self._closing:
            self._fail(st, "closed before it started")
            return
        st.stop = asyncio.Event()
        limit = st.entry.config.startup_timeout
        with anyio.CancelScope() as scope:
            st.scope = scope
            timer = asyncio.get_running_loop().call_later(limit, self._startup_expired, st, limit)
            try:
                async with self._connect(st) as client:
                    st.tools = await _list_tools(client)
                    st.client, st.status = client, "connected"
                    timer.cancel()
                    st.ready.set()
                    await st.stop.wait()
            except Exception as e:
                self._fail(st, self._reason(st, e))
            finally:
                timer.cancel()
                st.client = None
        if st.status == "connecting":
            self._fail(st, "closed before it connected")
        elif st.status == "connected":
            st.status = "closed"
        st.ready.set()

    def _startup_expired(self, st: ServerState, limit: float) -> None:
        if st.status == "connecting":
            self._fail(st, f"did not start within {limit:g} s")
            if st.scope is not None:
                st.scope.cancel()

    @asynccontextmanager
    async def _connect(self, st: ServerState) -> AsyncIterator[Any]:
        from mcp import Client

        cfg = st.entry.config
        async with AsyncExitStack() as stack:
            if st.entry.transport == "stdio":
                from mcp.client.stdio import StdioServerParameters, stdio_client

                st.errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115 (closed in close())
                params = StdioServerParameters(command=cfg.command or "", args=cfg.args, env=cfg.env or None,
                                               cwd=cfg.cwd)
                transport: Any = stdio_client(params, errlog=st.errlog)
            elif st.entry.transport == "sse":
                from mcp.client.sse import sse_client

                transport = sse_client(cfg.url or "", headers=cfg.headers or None)
            else:
                import httpx2
                from mcp.client.streamable_http import streamable_http_client

                http = await stack.enter_async_context(httpx2.AsyncClient(
                    headers=cfg.headers, timeout=httpx2.Timeout(30.0, read=300.0)))
                transport = streamable_http_client(cfg.url or "", http_client=http)
            yield await stack.enter_async_context(Client(transport))

    def _reason(self, st: ServerState, exc: BaseException) -> str:
        if st.status == "failed":       # already explained (timeout)
            return st.error
        leaf = _leaf(exc)
        if isinstance(leaf, FileNotFoundError) and st.entry.config.command:
            text = f"command not found: {st.entry.config.command}"
        else:
            text = str(leaf).strip().splitlines()[0] if str(leaf).strip() else type(leaf).__name__
        tail = st.stderr_tail()
        return f"{text} (stderr: {tail})" if tail else text

    # -- tool calls (from any thread) --------------------------------------------------------------
    def call(self, server: str, tool: str, arguments: dict[str, Any], *, timeout: float,
             cancel: threading.Event) -> ToolOutput:
        st = self.servers.get(server)
        if st is None or st.status != "connected" or self._loop is None:
            why = f" ({st.error})" if st is not None and st.error else ""
            raise ToolError(f"MCP server '{server}' is not connected{why}")
        box: dict[str, Any] = {}
        future = asyncio.run_coroutine_threadsafe(self._call(st, tool, arguments, timeout, box), self._loop)
        while True:
            try:
                result = future.result(0.05)
                break
            except _CallTimedOut:
                raise ToolError(f"{tool} on MCP server '{server}' timed out after {timeout:g} s") from None
            except concurrent.futures.TimeoutError:   # still running (an alias of TimeoutError on 3.11+)
                if cancel.is_set():
                    self._cancel_call(future, box)
                    raise Cancelled() from None
            except concurrent.futures.CancelledError:
                raise Cancelled() from None
            except Exception as e:
                raise ToolError(self._call_error(st, e)) from None
        if result is None:
            raise Cancelled()
        return result_output(result)

    async def _call(self, st: ServerState, tool: str, arguments: dict[str, Any], timeout: float,
                    box: dict[str, Any]) -> Any:
        import anyio

        client = st.client
        if client is None:
            raise ToolError("the server closed")
        with anyio.CancelScope() as scope:
            box["scope"] = scope
            try:
                with anyio.fail_after(timeout):
                    return await client.call_tool(tool, arguments)
            except TimeoutError:
                raise _CallTimedOut() from None
        return None   # cancelled

    def _cancel_call(self, future: concurrent.futures.Future[Any], box: dict[str, Any]) -> None:
        scope = box.get("scope")
        if scope is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(scope.cancel)
        else:
            future.cancel()

    def _call_error(self, st: ServerState, exc: BaseException) -> str:
        leaf = _leaf(exc)
        text = str(leaf).strip() or type(leaf).__name__
        if type(leaf).__name__ in ("ClosedResourceError", "BrokenResourceError", "EndOfStream"):
            text = "the connection to the server is closed"
        if "closed" in text.lower():
            tail = st.stderr_tail()
            if tail:
                text += f" (stderr: {tail})"
        return f"MCP server '{st.name}': {text}"


class _CallTimedOut(Exception):
    """A tool call ran out of time (distinct from ``concurrent.futures.TimeoutError``)."""


def _leaf(exc: BaseException) -> BaseException:
    """The first real exception inside (nested) exception groups."""
    while True:
        inner = getattr(exc, "exceptions", None)
        if not inner:
            return exc
        exc = inner[0]


async def _list_tools(client: Any) -> list[RemoteTool]:
    tools: list[RemoteTool] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(remote_tool(t) for t in page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools
