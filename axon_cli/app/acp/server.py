"""``axon acp``: an Agent Client Protocol agent over stdio, a third frontend on the same core.

The ACP connection (the ``agent-client-protocol`` SDK) runs its asyncio loop on a background thread;
opening sessions and running turns are jobs for the main thread (``runner.py``). stdout carries only
the protocol: file descriptor 1 is pointed at stderr before anything runs, and the protocol writes to
a private copy of the original stdout, so a stray print (or a child process) cannot corrupt it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from typing import TYPE_CHECKING, Any, cast

from axon_cli.agent.model.endpoints import endpoint_address
from axon_cli.app.acp.acp_session import AcpSession, open_acp_session
from axon_cli.app.acp.prompt import prompt_turn
from axon_cli.app.acp.runner import MainRunner
from axon_cli.kernel.errors import AxonError
from axon_cli.kernel.events import SessionStarted
from axon_cli.kernel.version import __version__

if TYPE_CHECKING:
    from axon_cli.app.telemetry import EventRecorder, TelemetrySink

__all__ = ["AxonAgent", "serve"]

log = logging.getLogger("axon.acp")
_STOP = {"final": "end_turn", "error": "end_turn", "max_turns": "max_turn_requests", "interrupted": "cancelled"}


def _request_error(e: BaseException) -> Exception:
    from acp import RequestError

    if isinstance(e, RequestError):
        return e
    if isinstance(e, (AxonError, OSError, ValueError)):
        return RequestError(-32602, str(e).splitlines()[0] if str(e) else type(e).__name__)
    log.error("internal error", exc_info=e)
    return RequestError.internal_error({"details": f"{type(e).__name__}: {e}"})


class AxonAgent:
    """The ACP Agent: initialize, session/new, session/load, session/prompt, session/set_mode,
    session/cancel."""

    def __init__(self, runner: MainRunner, trust_run: bool = False) -> None:
        self.runner = runner
        self.trust_run = trust_run
        self.conn: Any = None
        self.client_caps: Any = None
        self.sessions: dict[str, AcpSession] = {}
        self.telemetry: TelemetrySink | None = None
        self._telemetry_tried = False
        self._recorders: list[EventRecorder] = []

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def _on_main(self, work: Any, owner: object = None, on_interrupt: Any = lambda: None) -> Any:
        try:
            return await asyncio.wrap_future(self.runner.submit(work, owner=owner, on_interrupt=on_interrupt))
        except Exception as e:
            raise _request_error(e) from None

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None,
                         **kwargs: Any) -> Any:
        from acp import PROTOCOL_VERSION
        from acp.schema import (
            AgentCapabilities,
            Implementation,
            InitializeResponse,
            McpCapabilities,
            PromptCapabilities,
        )

        self.client_caps = client_capabilities
        caps = AgentCapabilities(load_session=True,
                                 prompt_capabilities=PromptCapabilities(image=True, audio=False, embedded_context=True),
                                 mcp_capabilities=McpCapabilities(http=True, sse=False))
        return InitializeResponse(protocol_version=min(protocol_version, PROTOCOL_VERSION), agent_capabilities=caps,
                                  agent_info=Implementation(name="axon", title="axon", version=__version__),
                                  auth_methods=[])

    async def authenticate(self, method_id: str, **kwargs: Any) -> Any:
        return None

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any) -> Any:
        from acp.schema import NewSessionResponse

        loop = asyncio.get_running_loop()
        session: AcpSession = await self._on_main(lambda: self._observed(open_acp_session(
            self.conn, loop, self.client_caps, cwd, mcp_servers or [], self.trust_run)))
        self.sessions[session.session_id] = session
        return NewSessionResponse(session_id=session.session_id, modes=session.modes())

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           **kwargs: Any) -> Any:
        from acp import RequestError
        from acp.schema import LoadSessionResponse

        if session_id in self.sessions:
            raise RequestError(-32602, f"session {session_id} is already open")
        loop = asyncio.get_running_loop()

        def work() -> AcpSession:
            session = open_acp_session(self.conn, loop, self.client_caps, cwd, mcp_servers or [], self.trust_run,
                                       resume=session_id)
            session.replay()
            return self._observed(session)

        session: AcpSession = await self._on_main(work)
        self.sessions[session.session_id] = session
        return LoadSessionResponse(modes=session.modes())

    def _observed(self, session: AcpSession) -> AcpSession:
        """OpenTelemetry for the session, on the main thread: started with the first session's settings
        (on through ``OTEL_*`` or its project's ``[telemetry]``), then one span tree per session."""
        if not self._telemetry_tried:
            self._telemetry_tried = True
            from axon_cli.app.telemetry import start_telemetry

            self.telemetry = start_telemetry(session.rt.loaded.settings.telemetry, "axon.session", __version__,
                                             log.warning)
        if self.telemetry is None:
            return session
        rt = session.rt
        recorder = self.telemetry.session_sink("axon.session")
        recorder(SessionStarted(session_id=rt.session_id, model=rt.llm.settings.model, cwd=str(session.cwd),
                                mode=rt.policy.mode, tools=[s.name for s in rt.registry.active()],
                                endpoint=endpoint_address(rt.llm.settings.base_url)))
        rt.bus.subscribe(recorder)
        self._recorders.append(recorder)
        return session

    def _session(self, session_id: str) -> AcpSession:
        from acp import RequestError

        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.resource_not_found(f"session:{session_id}")
        return session

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> Any:
        from acp import RequestError
        from acp.schema import PromptResponse

        session = self._session(session_id)
        if session.busy:
            raise RequestError(-32602, "a prompt is already running in this session")
        session.busy, session.cancel_requested = True, False
        try:
            turn, notes = prompt_turn(prompt, session.rt.project_root)
            result = await self._on_main(lambda: session.run_turn(turn, notes), owner=session,
                                         on_interrupt=session.interrupted)
        finally:
            session.busy = False
        stop = "cancelled" if session.cancel_requested else _STOP.get(result.stop_reason, "end_turn")
        return PromptResponse(stop_reason=stop)  # type: ignore[arg-type]

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> Any:
        from acp.schema import SetSessionModeResponse

        try:
            self._session(session_id).set_mode(mode_id)
        except AxonError as e:
            raise _request_error(e) from None
        return SetSessionModeResponse()

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is None or not session.busy:
            return
        session.cancel_requested = True
        session.rt.ctx.cancel.set()          # the stop Ctrl-C sets, then Ctrl-C itself
        self.runner.interrupt(session)

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        from acp import RequestError

        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    def interrupt_all(self) -> None:
        for session in list(self.sessions.values()):
            if session.busy:
                session.cancel_requested = True
                session.rt.ctx.cancel.set()
                self.runner.interrupt(session)

    def close_all(self) -> None:
        for session in list(self.sessions.values()):
            try:
                session.close()
            except Exception:
                log.exception("closing session %s failed", session.session_id)
        self.sessions.clear()
        for recorder in self._recorders:
            recorder.close()
        self._recorders.clear()
        if self.telemetry is not None:
            self.telemetry.close()          # flushed, at most the configured timeout


async def _listen(agent: AxonAgent, protocol_out: int) -> None:
    from acp.core import AgentSideConnection

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=50 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                        os.fdopen(protocol_out, "wb", buffering=0))
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    conn = AgentSideConnection(cast(Any, agent), writer, reader, listening=False)
    try:
        await conn.listen()
    finally:
        await conn.close()


class _OneLine(logging.Formatter):
    """A log record as one line on stderr: an exception is its type and message, never a traceback
    (``--debug`` keeps the whole record in .axon/debug.log)."""

    def format(self, record: logging.LogRecord) -> str:
        line = f"axon acp: {record.levelname.lower()}: {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            line += f" ({type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''})"
        return line.replace("\n", " ")


def _log_to_stderr() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    handler.setLevel(logging.WARNING)
    root = logging.getLogger()          # the SDK logs through the root logger
    root.addHandler(handler)
    root.setLevel(min(root.level or logging.WARNING, logging.WARNING))
    logging.getLogger("axon.acp").addHandler(handler)     # axon's own logger does not propagate


def _is_stream(fd: int) -> bool:
    import stat

    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


def serve(trust_run: bool = False) -> int:
    """Serve ACP on stdin/stdout until the client closes stdin; the exit code."""
    if not (_is_stream(0) and _is_stream(1)):
        sys.stderr.write("axon: error: axon acp talks to an ACP client over pipes: run it from an editor or "
                         "another ACP client (stdin and stdout cannot be regular files)\n")
        return 2
    protocol_out = os.dup(1)
    os.dup2(2, 1)                      # fd 1 is stderr from now on: only the protocol copy is stdout
    sys.stdout = sys.stderr
    _log_to_stderr()
    runner = MainRunner()
    agent = AxonAgent(runner, trust_run)

    def connection() -> None:
        try:
            asyncio.run(_listen(agent, protocol_out))
        except Exception:
            log.exception("the ACP connection failed")
        finally:                        # the client is gone: stop what runs, then close every session
            agent.interrupt_all()
            runner.submit(agent.close_all)
            runner.stop()

    threading.Thread(target=connection, name="axon-acp", daemon=True).start()
    try:
        runner.serve()
    except KeyboardInterrupt:           # a real Ctrl-C / SIGINT: end the server
        agent.close_all()
        return 130
    return 0
