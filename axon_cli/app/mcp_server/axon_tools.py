"""The MCP server: tools ``axon`` (a new session, run to its final answer) and ``axon-reply`` (one
more prompt in a session this server opened), over stdio.

Every call's result is the answer as text content plus ``structuredContent`` ``{"session_id",
"stop_reason", "num_turns", "changed_files", "usage"}``; a session that ended in an error, a turn
limit or an interruption is ``isError``. A client never gets a mode above the server's ``--mode``
(default ``default``): asking for one is refused. While a call runs, each tool call the session makes
is a progress notification and an ``info`` log message. A client's cancellation stops the turn as
Ctrl-C would (every pending tool call answered) and the session stays usable for ``axon-reply``.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from axon_cli.kernel.events import Event, ToolCallBegin

__all__ = ["serve", "ServerOptions"]


@dataclass
class ServerOptions:
    """``axon mcp-server``'s flags: the mode ceiling and the defaults of every session it opens."""

    mode: str = "default"
    model: str | None = None
    base_url: str | None = None
    sandbox: str | None = None
    trust: bool = False
    sessions: dict[str, Any] = field(default_factory=dict)   # session id -> sdk.Session (this process)
    waiting: dict[str, Any] = field(default_factory=dict)    # request_state -> (session, CallRun) asking


def serve(options: ServerOptions) -> None:
    """Serve on stdin/stdout until the client closes the connection."""
    from axon_cli.kernel.version import __version__

    server = MCPServer("axon", version=__version__, log_level="WARNING",
                       instructions="axon is a coding agent: `axon` runs a task in a project directory (cwd) to "
                                    "its final answer; `axon-reply` continues that session.")

    @server.tool(name="axon", description="Run a coding task with axon in a project directory until it gives its "
                 "final answer. Returns the answer and the session id (for axon-reply).")
    async def axon(prompt: str, ctx: Context[Any], cwd: str | None = None, mode: str | None = None,
                   model: str | None = None, max_turns: int | None = None) -> Any:
        if (resumed := await _answered(options, ctx)) is not None:
            return resumed
        return await _new_session(options, ctx, prompt, cwd, mode, model, max_turns)

    @server.tool(name="axon-reply", description="Continue an axon session (its session_id from an earlier axon "
                 "call) with one more prompt.")
    async def axon_reply(session_id: str, prompt: str, ctx: Context[Any]) -> Any:
        if (resumed := await _answered(options, ctx)) is not None:
            return resumed
        session = options.sessions.get(session_id)
        if session is None:
            return _error(f"no session {session_id!r} in this server (start one with the axon tool)")
        return await _send(options, session, ctx, prompt)

    try:
        asyncio.run(server.run_stdio_async())
    finally:
        for session in options.sessions.values():
            with contextlib.suppress(Exception):
                session.close()


async def _new_session(options: ServerOptions, ctx: Any, prompt: str, cwd: str | None, mode: str | None,
                       model: str | None, max_turns: int | None) -> Any:
    from axon_cli.app.sdk import Session
    from axon_cli.kernel.errors import AxonError
    from axon_cli.policy.modes import MODES, rank

    wanted = mode or options.mode
    if wanted not in MODES:
        return _error(f"unknown mode {wanted!r} (one of {', '.join(MODES)})")
    if rank(wanted) > rank(options.mode):
        return _error(f"mode {wanted!r} is above this server's --mode {options.mode!r}; ask for "
                      f"{options.mode!r} or a narrower one")
    try:
        session = await asyncio.to_thread(
            Session, cwd, mode=wanted, model=model or options.model, base_url=options.base_url,
            sandbox=options.sandbox, trust=options.trust, max_turns=max_turns)
    except AxonError as e:
        return _error(str(e))
    options.sessions[session.session_id] = session
    return await _send(options, session, ctx, prompt)


async def _send(options: ServerOptions, session: Any, ctx: Any, prompt: str) -> Any:
    """One prompt on a worker thread; approvals and progress cross back to this loop."""
    from axon_cli.app.mcp_server.asking import CallRun, ElicitingApprover

    loop = asyncio.get_running_loop()
    progress = _Progress(ctx, loop)
    run = CallRun(loop.run_in_executor(None, _send_listening, session, prompt, progress))
    run.progress = progress
    session.approver.approve = ElicitingApprover(ctx, loop, run)
    return await _drive(options, session, run)


def _send_listening(session: Any, prompt: str, progress: _Progress) -> Any:
    session.listen(progress)
    try:
        return session.send(prompt)
    finally:
        session.unlisten(progress)


async def _drive(options: ServerOptions, session: Any, run: Any) -> Any:
    """Wait for the prompt's result, or for a question the call must carry to the client (the
    2026-07-28 protocol): then the call answers with it, and its retry resumes here."""
    import secrets

    from axon_cli.app.mcp_server.asking import input_required

    question = asyncio.ensure_future(run.questions.get())
    try:
        await asyncio.wait({asyncio.shield(run.worker), question}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        question.cancel()
        session.cancel()                 # the client cancelled: stop the turn, answer every pending call
        with contextlib.suppress(Exception):
            await run.worker
        raise
    if run.worker.done():
        question.cancel()
        return _result(run.worker.result())
    message, run.waiting = question.result()
    state = secrets.token_urlsafe(24)
    options.waiting[state] = (session, run)
    return input_required(message, state)


async def _answered(options: ServerOptions, ctx: Any) -> Any | None:
    """A retry that carries the answer to a question this server asked: hand it to the waiting
    prompt and go on with it (None: not such a retry)."""
    from axon_cli.app.mcp_server.asking import answer_of

    state = getattr(ctx, "request_state", None)
    if not state:
        return None
    entry = options.waiting.pop(state, None)
    if entry is None:
        return _error("that request_state is unknown or was answered already")
    session, run = entry
    session.approver.approve.ctx = run.progress.ctx = ctx      # this round's request carries what follows
    if run.waiting is not None and not run.waiting.done():
        run.waiting.set_result(answer_of(ctx.input_responses))
    return await _drive(options, session, run)


class _Progress:
    """Each tool call a session makes, as a progress notification and a log message."""

    def __init__(self, ctx: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.ctx = ctx
        self.loop = loop
        self.calls = 0

    def __call__(self, event: Event) -> None:
        if isinstance(event, ToolCallBegin):
            self.calls += 1
            line = f"{event.name}({event.summary})" if event.summary else event.name
            asyncio.run_coroutine_threadsafe(self._send(self.calls, line), self.loop)

    async def _send(self, n: int, line: str) -> None:
        with contextlib.suppress(Exception):
            await self.ctx.report_progress(n, message=line)
        with contextlib.suppress(Exception):
            await self.ctx.info(f"tool call {n}: {line}")


def _result(result: Any) -> Any:
    import mcp_types as t

    structured = {"session_id": result.session_id, "stop_reason": result.stop_reason,
                  "num_turns": result.num_turns, "changed_files": list(result.changed_files), "usage": result.usage}
    return t.CallToolResult(content=[t.TextContent(type="text", text=result.result or "")],
                            structured_content=structured, is_error=result.is_error)


def _error(message: str) -> Any:
    import mcp_types as t

    return t.CallToolResult(content=[t.TextContent(type="text", text=f"axon: error: {message}")], is_error=True)
