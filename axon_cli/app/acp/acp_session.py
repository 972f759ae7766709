"""One ACP session: an axon runtime (a new session or a resumed transcript) and its frontend parts.

Opened on the main thread (``runner.py``) in the session's ``cwd``: settings and folder trust are
loaded for that project exactly as ``axon chat`` would (an untrusted folder's widening files wait,
and say so), the client's MCP servers join the configured ones, and the client's ``fs`` methods
become the file tools' buffers when it offers them.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from axon_cli.agent.loop.results import RunResult
from axon_cli.app.acp.approver import AcpApprover
from axon_cli.app.acp.fs import ClientFs
from axon_cli.app.acp.updates import AcpUpdates
from axon_cli.kernel.events import ApprovalAnswer, ApprovalRequest, Notice
from axon_cli.kernel.turn import UserTurn
from axon_cli.session.runtime.opening import Runtime

__all__ = ["AcpSession", "open_acp_session"]


class _LateApprover:
    """The dispatcher's approver until the session id is known (the runtime is built first)."""

    def __init__(self) -> None:
        self.target: Any = None

    def __call__(self, request: ApprovalRequest) -> ApprovalAnswer:
        if self.target is None:
            return ApprovalAnswer(approved=False, message="the session is not open yet")
        answer: ApprovalAnswer = self.target(request)
        return answer


class AcpSession:
    def __init__(self, rt: Runtime, updates: AcpUpdates, cwd: Path) -> None:
        self.rt = rt
        self.updates = updates
        self.cwd = cwd
        self.subscribed = False
        self.cancel_requested = False
        self.busy = False

    @property
    def session_id(self) -> str:
        return self.rt.session_id

    def run_turn(self, turn: UserTurn, notes: list[str]) -> RunResult:
        """One prompt's turn, on the main thread (a cancel interrupts it like Ctrl-C)."""
        _enter(self.cwd)
        if not self.subscribed:       # notices kept since the session opened go out with the first turn
            self.rt.bus.subscribe(self.updates)
            self.subscribed = True
        for line in notes:
            self.rt.bus(Notice(message=line))
        if self.cancel_requested:
            return RunResult("interrupted by user", "interrupted", 0)
        try:
            return self.rt.agent.run(turn)
        except KeyboardInterrupt:
            return self.interrupted()

    def interrupted(self) -> RunResult:
        """A cancel that escaped the agent: close every open tool call, as the REPL does."""
        from axon_cli.agent.loop.results import repair_history

        self.rt.ctx.cancel.set()
        repair_history(self.rt.agent)
        return RunResult("interrupted by user", "interrupted", 0)

    def replay(self) -> None:
        """Send the conversation so far (``session/load``) as user/agent chunks and tool calls."""
        from axon_cli.app.acp.history import history_updates

        for update in history_updates(self.rt.agent.messages, self.rt.registry, self.rt.project_root):
            self.updates.send(update)

    def close(self) -> None:
        self.rt.close()

    def modes(self) -> Any:
        """The permission modes as ACP session modes (the editor's mode selector), this one current."""
        from acp.schema import SessionMode, SessionModeState

        from axon_cli.policy.modes import DESCRIPTIONS, MODES

        return SessionModeState(current_mode_id=self.rt.policy.mode,
                                available_modes=[SessionMode(id=m, name=m, description=DESCRIPTIONS[m]) for m in MODES])

    def set_mode(self, mode: str) -> None:
        """The user picked ``mode`` in the editor (as ``/mode`` in chat); the next call is decided in it,
        also in a turn that is running. An unknown mode: ``ConfigError``."""
        from axon_cli.policy.modes import auto_fallback_note

        self.rt.policy.set_mode(mode)
        note = auto_fallback_note(mode, getattr(self.rt.policy, "containment", None))
        if note:
            self.rt.bus(Notice(message=note))


def _enter(cwd: Path) -> None:
    try:
        if Path.cwd() != cwd:
            os.chdir(cwd)
    except OSError:
        os.chdir(cwd)


def _acp_servers(loaded: Any, servers: list[Any]) -> list[str]:
    """The client's MCP servers (stdio, http) added to axon's for this session; one note per other."""
    from axon_cli.settings.config import McpServerConfig

    notes: list[str] = []
    for server in servers or []:
        name = getattr(server, "name", "") or "client"
        if getattr(server, "command", None):
            env = {e.name: e.value for e in getattr(server, "env", []) or []}
            config = McpServerConfig.model_validate({"command": server.command, "args": list(server.args or []),
                                                     "env": env})
        elif getattr(server, "url", None) and getattr(server, "type", "") == "http":
            headers = {h.name: h.value for h in getattr(server, "headers", []) or []}
            config = McpServerConfig.model_validate({"url": server.url, "headers": headers})
        else:
            notes.append(f"MCP server {name!r} from the client: this transport is not supported, skipped")
            continue
        loaded.settings.mcp_servers[name] = config
    return notes


def open_acp_session(conn: Any, loop: asyncio.AbstractEventLoop, client_caps: Any, cwd: str,
                     mcp_servers: list[Any], trust_run: bool, resume: str | None = None) -> AcpSession:
    """Open (``resume``: load) a session for the project at ``cwd``; on the main thread."""
    from axon_cli.app.reports.trust import ignored_lines
    from axon_cli.kernel.state import find_project_root
    from axon_cli.session.runtime.opening import open_session
    from axon_cli.settings.config import load_settings
    from axon_cli.tools.builtin.files.buffers import CLIENT_FILES, read_buffer

    where = Path(cwd)
    if not where.is_absolute() or not where.is_dir():
        raise NotADirectoryError(f"cwd must be an existing absolute directory: {cwd}")
    _enter(where)
    root = find_project_root(where)
    loaded = load_settings(root, flags={}, trust_run=trust_run)
    notes = _acp_servers(loaded, mcp_servers)
    late = _LateApprover()
    rt = open_session(loaded, root, late, resume=resume)
    for line in [*ignored_lines(loaded.trust, loaded.trust.assess()), *notes]:
        rt.bus(Notice(message=line))
    fs = getattr(client_caps, "fs", None)
    can_read, can_write = bool(getattr(fs, "read_text_file", False)), bool(getattr(fs, "write_text_file", False))
    if can_read or can_write:
        rt.ctx.extra[CLIENT_FILES] = ClientFs(conn, loop, rt.session_id, can_read=can_read, can_write=can_write)
    late.target = AcpApprover(conn, loop, rt.session_id, rt.registry, root, rt.ctx.cancel)
    updates = AcpUpdates(conn, loop, rt.session_id, rt.registry, root, lambda p: read_buffer(rt.ctx, p))
    return AcpSession(rt, updates, where)
