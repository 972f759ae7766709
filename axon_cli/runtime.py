"""Builds a working session from settings: registry, context, policy, dispatcher, client, agent.

Frontends (``axon run``, ``axon chat``) call ``build_runtime`` and then only talk to the agent
through events and the approver.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from axon_cli.config import LoadedSettings, Settings
from axon_cli.core.agent import Agent
from axon_cli.core.llm import LLMClient
from axon_cli.core.protocol import configure as configure_protocol
from axon_cli.core.protocol import system_block
from axon_cli.errors import UsageError
from axon_cli.events import Approver, Event, EventSink, Notice, SessionStarted
from axon_cli.permissions.base import PermissionPolicy
from axon_cli.permissions.containment import Containment
from axon_cli.sandbox import SandboxStatus, sandboxed_specs
from axon_cli.sandbox import resolve as resolve_sandbox
from axon_cli.session.compaction import Compactor
from axon_cli.session.context import build_system_prompt, gather_context
from axon_cli.session.cost import CostMeter
from axon_cli.session.hooks import SessionHooks
from axon_cli.session.transcript import (
    LoadedTranscript,
    Transcript,
    latest_session_id,
    load_transcript,
    new_session_id,
    resolve_session_id,
    sessions_dir,
)
from axon_cli.snapshots import ProjectSnapshots, TurnSnapshots, list_lines, undo_turns
from axon_cli.tools.dispatch import Dispatcher
from axon_cli.tools.registry import ToolRegistry, builtin_specs
from axon_cli.tools.spec import Checkpointer, ToolContext

__all__ = ["Runtime", "build_runtime", "open_session", "EventBus"]


class EventBus:
    """Fans events out to subscribers; a failing subscriber never breaks the core."""

    def __init__(self) -> None:
        self._subscribers: list[EventSink] = []

    def subscribe(self, sink: EventSink) -> None:
        self._subscribers.append(sink)

    def __call__(self, event: Event) -> None:
        for sink in list(self._subscribers):
            try:
                sink(event)
            except Exception:  # a frontend bug must not stop the agent
                import logging

                logging.getLogger("axon").exception("event subscriber failed")


@dataclass
class Runtime:
    loaded: LoadedSettings
    project_root: Path
    session_id: str
    bus: EventBus
    registry: ToolRegistry
    ctx: ToolContext
    policy: PermissionPolicy
    dispatcher: Dispatcher
    llm: LLMClient
    agent: Agent
    extras: dict[str, Any] = field(default_factory=dict)
    session: SessionHooks | None = None
    sandbox: SandboxStatus | None = None
    snapshots: ProjectSnapshots | None = None
    notices: list[str] = field(default_factory=list)     # said once, when a frontend announces the session

    def _hooks(self) -> SessionHooks:
        if self.session is None:
            raise UsageError("this runtime has no session")
        return self.session

    def announce(self) -> None:
        """Tell the frontends the session started, then the notices of its start (once)."""
        self.bus(SessionStarted(session_id=self.session_id, model=self.llm.settings.model, cwd=str(self.project_root),
                                mode=current_mode(self.policy, self.loaded.settings),
                                tools=[s.name for s in self.registry.active()]))
        notices, self.notices = self.notices, []
        for message in notices:
            self.bus(Notice(message=message))

    def undo(self, count: int = 1) -> list[str]:
        """Put back what the last ``count`` turns changed (files and shell effects alike, newest
        first, in this project); what happened, per file. The model is told."""
        hooks = self._hooks()
        if self.snapshots is None or (why := self.snapshots.unavailable()) is not None:
            return [f"nothing to undo: {why if self.snapshots else 'no snapshots in this session'}"]
        reports = undo_turns(self.snapshots, count)
        if not reports:
            return list_lines(self.snapshots)[:1]
        lines = [line for r in reports for line in r.lines(self.session_id)]
        changed = [o for r in reports for o in r.outcomes if o.action != "skipped"]
        for o in changed:
            self.ctx.file_state.forget(self.project_root / o.path)
        if changed:
            note = {"role": "user", "content": "[axon: the user undid your changes of the last turn: "
                    + "; ".join(o.line().strip() for o in changed) + ". Read files again before editing them.]"}
            self.agent.messages.append(note)
            hooks.note(note)
        return lines

    def compact(self, focus: str | None = None) -> str:
        """Summarise the history now (``/compact [focus]``); a one-line report."""
        result = self._hooks().compactor.compact(self.agent, manual=True, focus=focus or None)
        return result.line() if result else "nothing to compact (the conversation is short, or the summary failed)"

    def cost_text(self) -> str:
        return self._hooks().meter.text(self.llm.usage)

    def cost_usd(self) -> float | None:
        return self._hooks().meter.update(self.llm.usage)

    def context_tokens(self) -> int:
        """About how many prompt tokens the next request takes (for a context gauge)."""
        return self._hooks().compactor.measure(self.agent)

    def switch_model(self, name: str) -> None:
        self.loaded.settings.model = name
        self._hooks().meta("model", model=name)

    def close(self) -> None:
        self.agent.close()
        mcp = self.extras.pop("mcp", None)
        if mcp is not None:
            mcp.close()


def make_policy(loaded: LoadedSettings, project_root: Path, containment: Containment | None = None) -> PermissionPolicy:
    import shutil

    from axon_cli.permissions.policy import load_policy

    return load_policy(loaded, project_root, containment, which=shutil.which)


def current_mode(policy: PermissionPolicy, settings: Settings) -> str:
    return policy.mode or settings.mode


def build_runtime(loaded: LoadedSettings, project_root: Path, approver: Approver,
                  session_id: str | None = None, messages: list[dict[str, Any]] | None = None,
                  resumed: LoadedTranscript | None = None) -> Runtime:
    settings = loaded.settings
    sandbox = resolve_sandbox(settings.sandbox)      # an explicit sandbox that cannot work: exit 1 now
    session_id = session_id or new_session_id()
    state_dir = project_root / ".axon"
    bus = EventBus()
    registry = ToolRegistry(sandboxed_specs(builtin_specs(), sandbox.mode))
    from axon_cli.mcp import start_mcp

    mcp = start_mcp(loaded, project_root, registry, bus)   # MCP servers connect in the background
    ctx = ToolContext(project_root=project_root, state_dir=state_dir, session_id=session_id,
                      settings=settings, emit=bus, registry=registry, sandbox=sandbox.mode)
    snapshots = ProjectSnapshots.for_settings(project_root, settings)
    notices = [f"sandbox: off ({sandbox.reason}); bash commands are not confined"] if sandbox.fell_back else []
    if (no_snapshots := snapshots.unavailable()) is not None and settings.snapshots:
        notices.append(f"undo is not available: {no_snapshots}")
    ctx.checkpointer = TurnSnapshots(snapshots, session_id) if no_snapshots is None else Checkpointer()
    policy = make_policy(loaded, project_root, _containment(sandbox, ctx.checkpointer))
    dispatcher = Dispatcher(registry, ctx, policy=policy, approver=approver, emit=bus)
    llm = LLMClient(settings, emit=bus)
    if mcp is not None:
        mcp.wait_and_register()   # bounded by each server's startup_timeout; failures become notices
    protocol = configure_protocol(settings, registry, llm, bus)   # tool_protocol + prompt_profile
    hooks = session_hooks(loaded, state_dir, session_id, ctx, registry, policy, bus, resumed)
    gathered = gather_context(project_root, Path.cwd())
    agent = Agent(llm=llm, registry=registry, dispatcher=dispatcher, ctx=ctx,
                  system_prompt=lambda: (build_system_prompt(project_root, settings, registry,
                                                             hooks.current_mode(), gathered)
                                         + system_block(protocol, registry)),
                  emit=bus, hooks=hooks, protocol=protocol, messages=messages)
    return Runtime(loaded, project_root, session_id, bus, registry, ctx, policy, dispatcher, llm, agent,
                   extras={"mcp": mcp} if mcp is not None else {}, session=hooks, sandbox=sandbox,
                   snapshots=snapshots, notices=notices)


def _containment(sandbox: SandboxStatus, checkpointer: Checkpointer) -> Containment:
    """The facts the policy needs for "sandboxed, undoable"."""
    uncovered = checkpointer.uncovered if isinstance(checkpointer, TurnSnapshots) else None
    return Containment(confined=sandbox.mode == "workspace-write", uncovered=uncovered)


def session_hooks(loaded: LoadedSettings, state_dir: Path, session_id: str, ctx: ToolContext,
                  registry: ToolRegistry, policy: PermissionPolicy, bus: EventBus,
                  resumed: LoadedTranscript | None) -> SessionHooks:
    """The transcript, snapshots, compaction and cost of one session (new or resumed)."""
    import time

    settings = loaded.settings
    transcript = Transcript(state_dir, session_id, exists=resumed is not None)
    meter = CostMeter(settings)
    compactor = Compactor(settings, bus, todos=lambda: ctx.extra.get("todos"))
    hooks = SessionHooks(transcript, ctx.checkpointer, compactor, meter, ctx, registry, bus,
                         lambda: current_mode(policy, settings))
    if resumed is None:
        hooks.meta("session", id=session_id, started=time.strftime("%Y-%m-%dT%H:%M:%S"),
                   cwd=str(Path.cwd()), model=settings.model)
        return hooks
    transcript.message_count = resumed.message_count
    hooks.turns = resumed.turns
    meter.base_prompt, meter.base_completion = resumed.prompt_tokens, resumed.completion_tokens
    return hooks


def open_session(loaded: LoadedSettings, project_root: Path, approver: Approver, *, cont: bool = False,
                 resume: str | None = None) -> Runtime:
    """A new session, this project's latest one (``cont``), or session ``resume`` (an id or a unique
    prefix). Resuming restores the messages (as compacted), the permission mode (unless --mode was
    given), activated deferred tools and the todo list."""
    state_dir = project_root / ".axon"
    if cont and resume is not None:
        raise UsageError("give either --continue or --resume, not both")
    session_id: str | None = None
    if cont:
        session_id = latest_session_id(state_dir)
        if session_id is None:
            raise UsageError("no earlier session in this project to continue (see `axon sessions`)")
    elif resume is not None:
        if not resume.strip():
            raise UsageError("--resume needs a session id here (see `axon sessions`)")
        session_id = resolve_session_id(state_dir, resume)
    if session_id is None:
        return build_runtime(loaded, project_root, approver)
    try:
        resumed = load_transcript(sessions_dir(state_dir) / f"{session_id}.jsonl")
    except OSError as e:
        raise UsageError(f"cannot read session {session_id}: {e.strerror or e}") from None
    rt = build_runtime(loaded, project_root, approver, session_id=session_id, messages=resumed.messages,
                       resumed=resumed)
    if resumed.mode and not loaded.source("mode").startswith("flag"):
        rt.policy.set_mode(resumed.mode)
    if resumed.activated:
        rt.registry.activate(resumed.activated)
    if resumed.todos is not None:
        rt.ctx.extra["todos"] = resumed.todos
    if rt.session is not None:
        rt.session.seed(rt.agent.messages, resumed.indexes)
    return rt
