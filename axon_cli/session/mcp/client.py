"""Connections to MCP servers: one asyncio event loop in a daemon thread holds every client session.

Each server runs in its own task: connect (``connect.py``), list its tools, then wait until
``close()``. A server that does not connect within its ``startup_timeout`` is cancelled and marked
failed with a one-line reason; one with ``enabled = false`` is never started. The rest of axon is
synchronous: ``call()`` submits a tool call to the loop and waits, honouring a timeout and a cancel
event. A server that was connected and has stopped (its process died) is started again on its next
call, at most ``MAX_RESTARTS`` times a session; after that each call says it stopped for good.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from axon_cli.machinery.sandbox.outside import OutsideGate
from axon_cli.session.mcp.asks import Asker
from axon_cli.session.mcp.connect import connect, server_launch
from axon_cli.session.mcp.convert import result_output
from axon_cli.session.mcp.server_state import (
    ServerState,
    Status,
    connection_lost,
    leaf,
    list_tools,
)
from axon_cli.settings.mcp_servers import ServerEntry, missing_command
from axon_cli.tools.spec import Cancelled, ToolError, ToolOutput

__all__ = ["McpManager", "ServerState", "Status", "MAX_RESTARTS"]

log = logging.getLogger("axon.mcp")
CLOSE_TIMEOUT = 6.0
MAX_RESTARTS = 2


class McpManager:
    def __init__(self, entries: list[ServerEntry], roots: list[Path] | None = None,
                 asker: Asker | None = None, gate: OutsideGate | None = None) -> None:
        self.servers: dict[str, ServerState] = {e.name: ServerState(e) for e in entries}
        self.roots = list(roots or [])          # answered to roots/list as file:// URIs
        self.gate = gate or OutsideGate(self.roots[0] if self.roots else Path.cwd())   # stdio servers start through it
        self.gate.remember(server_launch(st) for st in self.servers.values() if st.entry.transport == "stdio")
        self.asker = asker                      # asks the user an elicitation; None declines
        self.notify: Callable[[str], None] = lambda _line: None   # a line for the user (a restart)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runs: list[concurrent.futures.Future[None]] = []
        self._closing = False

    # -- lifecycle -----------------------------------------------------------------------------
    def start(self) -> McpManager:
        """Start connecting every server in the background; returns at once."""
        for st in self.servers.values():
            missing = missing_command(st.entry) if st.entry.config.enabled else None
            if not st.entry.config.enabled:
                st.status = "disabled"
                st.ready.set()
            elif missing:
                self._fail(st, missing)
        if all(st.status in ("failed", "disabled") for st in self.servers.values()):
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
                self._launch(st)
        return self

    def _launch(self, st: ServerState) -> None:
        assert self._loop is not None
        st.run = asyncio.run_coroutine_threadsafe(self._serve(st), self._loop)
        self._runs.append(st.run)

    def _run_loop(self) -> None:
        assert self._loop is not None
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    def wait_ready(self, timeout: float | None = None) -> None:
        """Block until every server is connected or failed (each is bounded by its startup_timeout)."""
        limit = timeout if timeout is not None else max(
            (st.entry.config.startup_timeout for st in self.servers.values() if st.status != "disabled"),
            default=0) + 2.0
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
                async with connect(st, self.roots, lambda: self.asker, self.gate) as client:
                    st.tools = await list_tools(client, st.entry)
                    st.client, st.status, st.connected_once = client, "connected", True
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

    def _reason(self, st: ServerState, exc: BaseException) -> str:
        if st.status == "failed":       # already explained (timeout)
            return st.error
        found = leaf(exc)
        if isinstance(found, FileNotFoundError) and st.entry.config.command:
            text = f"command not found: {st.entry.config.command}"
        else:
            text = str(found).strip().splitlines()[0] if str(found).strip() else type(found).__name__
        tail = st.stderr_tail()
        return f"{text} (stderr: {tail})" if tail else text

    # -- tool calls (from any thread) --------------------------------------------------------------
    def call(self, server: str, tool: str, arguments: dict[str, Any], *, timeout: float,
             cancel: threading.Event) -> ToolOutput:
        st = self.servers.get(server)
        if st is not None and self._loop is not None and st.gone():
            self._restart(st)
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
                if connection_lost(e):
                    st.died = True
                raise ToolError(self._call_error(st, e)) from None
        if result is None:
            raise Cancelled()
        return result_output(result)

    def _restart(self, st: ServerState) -> None:
        """Start a server that stopped again (once per call that finds it stopped, ``MAX_RESTARTS``
        times a session); a ToolError says why it is not running."""
        assert self._loop is not None
        with st.lock:
            if not st.gone() or self._closing:
                return
            tail = st.stderr_tail()
            why = f" (stderr: {tail})" if tail else ""
            if st.restarts >= MAX_RESTARTS:
                st.status, st.error = "failed", (f"it stopped {st.restarts + 1} times; not started again "
                                                 f"this session{why}")
                raise ToolError(f"MCP server '{st.name}' {st.error}")
            st.restarts += 1
            self._loop.call_soon_threadsafe(self._stop_one, st)
            try:
                st.run.result(CLOSE_TIMEOUT)
            except Exception:   # timed out or failed: the old connection is abandoned either way
                log.debug("old MCP connection did not end cleanly", exc_info=True)
            st.status, st.error, st.died, st.client = "connecting", "", False, None
            st.ready.clear()
            self._launch(st)
            st.ready.wait(st.entry.config.startup_timeout + 2.0)
            if st.status != "connected":
                self._fail(st, st.error or "did not start again")
                raise ToolError(f"MCP server '{st.name}' stopped{why} and did not start again: {st.error}")
            self.notify(f"MCP server '{st.name}' had stopped{why}; started it again "
                        f"(restart {st.restarts} of at most {MAX_RESTARTS})")

    def _stop_one(self, st: ServerState) -> None:  # on the loop thread
        if st.stop is not None:
            st.stop.set()
        if st.scope is not None:
            st.scope.cancel()

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
        found = leaf(exc)
        text = str(found).strip() or type(found).__name__
        if type(found).__name__ in ("ClosedResourceError", "BrokenResourceError", "EndOfStream"):
            text = "the connection to the server is closed"
        if "closed" in text.lower():
            tail = st.stderr_tail()
            if tail:
                text += f" (stderr: {tail})"
        if st.died and st.restarts < MAX_RESTARTS:
            text += "; it is started again on the next call"
        return f"MCP server '{st.name}': {text}"


class _CallTimedOut(Exception):
    """A tool call ran out of time (distinct from ``concurrent.futures.TimeoutError``)."""
