"""Builds a working session from settings: registry, context, policy, dispatcher, client, agent.

Frontends (``axon run``, ``axon chat``) call ``build_runtime`` and then only talk to the agent
through events and the approver.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from axon_cli.agent.assembly import build_agent, model_client
from axon_cli.agent.model.local_defaults import start_local_defaults
from axon_cli.agent.model.served_model import choose_served_model
from axon_cli.agent.protocols.builtin import configure as configure_protocol
from axon_cli.kernel.errors import UsageError
from axon_cli.kernel.events import Approver, Event, EventSink, Notice
from axon_cli.machinery.sandbox import SandboxStatus
from axon_cli.machinery.sandbox import resolve as resolve_sandbox
from axon_cli.machinery.snapshots import ProjectSnapshots, TurnSnapshots
from axon_cli.policy.base import PermissionPolicy
from axon_cli.policy.decision_context import Containment
from axon_cli.session.conversation.callbacks import SessionCallbacks
from axon_cli.session.conversation.compaction import Compactor
from axon_cli.session.conversation.context import (
    build_project_context,
    build_system_prompt,
    gather_context,
)
from axon_cli.session.conversation.cost import CostMeter
from axon_cli.session.conversation.instructions import NESTED_INSTRUCTIONS
from axon_cli.session.conversation.transcript import (
    LoadedTranscript,
    SessionInUse,
    Transcript,
    fork_session,
    latest_session_id,
    load_transcript,
    new_session_id,
    resolve_session_id,
    sessions_dir,
    unreadable_sessions,
)
from axon_cli.session.extend.session_parts import SessionParts
from axon_cli.session.extend.wiring import Extensions, add_task_tool, load_extensions
from axon_cli.session.runtime.runtime import EventBus, Runtime
from axon_cli.settings.config import LoadedSettings, Settings
from axon_cli.tools.builtin.bash.bash_tool import SESSION_ENV_KEY
from axon_cli.tools.builtin.files.diag_command import watch_diagnostics
from axon_cli.tools.builtin.web.web_tool import NAMED_HOSTS as WEB_NAMED_HOSTS
from axon_cli.tools.dispatch import Dispatcher
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import Checkpointer, ToolContext

__all__ = ["Runtime", "build_runtime", "open_session", "EventBus"]


def make_policy(loaded: LoadedSettings, project_root: Path, containment: Containment | None = None) -> PermissionPolicy:
    import shutil

    from axon_cli.policy.project_policy import load_policy

    return load_policy(loaded, project_root, containment, which=shutil.which)


def current_mode(policy: PermissionPolicy, settings: Settings) -> str:
    """The mode in force: the policy's (its one owner); ``settings.mode`` only when there is no policy
    mode at all (a pass-through policy)."""
    return policy.mode or settings.mode


def build_runtime(loaded: LoadedSettings, project_root: Path, approver: Approver,
                  session_id: str | None = None, messages: list[dict[str, Any]] | None = None,
                  resumed: LoadedTranscript | None = None) -> Runtime:
    from axon_cli.kernel.tempfiles import sweep

    sweep()                                       # temp files of writes a killed axon left behind
    choose_served_model(loaded)                   # no model set: the endpoint's only one, if it lists one
    server_asked = start_local_defaults(loaded)   # a loopback/private endpoint: local defaults for what is unset
    settings = loaded.settings
    sandbox = resolve_sandbox(settings.sandbox)      # an explicit sandbox that cannot work: exit 1 now
    session_id = session_id or new_session_id()
    state_dir = project_root / ".axon"
    from axon_cli.machinery.sandbox.child_env import configure as configure_child_env

    configure_child_env(settings)                    # env_pass, and the config's credentials no child sees
    bus = EventBus()
    registry = ToolRegistry.with_builtins(sandbox)   # bash states the sandbox it runs in
    extensions = load_extensions(settings, project_root, session_id, registry, bus, loaded.trust)
    from axon_cli.session.mcp import start_mcp

    mcp = start_mcp(loaded, project_root, registry, bus, extensions.gate)   # connect in the background, gated
    ctx = ToolContext(project_root=project_root, state_dir=state_dir, session_id=session_id,
                      settings=settings, emit=bus, registry=registry)
    snapshots = ProjectSnapshots.for_settings(project_root, settings)
    if sandbox.fell_back:        # kept by the bus until a frontend subscribes
        bus(Notice(message=f"sandbox: off ({sandbox.reason}); bash commands are not confined"))
    if (no_snapshots := snapshots.unavailable()) is not None and settings.snapshots:
        bus(Notice(message=f"undo is not available: {no_snapshots}"))
    ctx.checkpointer = TurnSnapshots(snapshots, session_id) if no_snapshots is None else Checkpointer()
    containment = _containment(sandbox, ctx.checkpointer)
    policy = make_policy(loaded, project_root, containment)
    ctx.mode = lambda: policy.mode                  # readers of the tool layer ask the mode's one owner
    from axon_cli.policy.modes import auto_fallback_note

    if (fallback := auto_fallback_note(policy.mode, containment)) is not None:
        bus(Notice(message=fallback))
    dispatcher = Dispatcher(registry, ctx, policy=policy, approver=approver, emit=_with_hooks(bus, extensions),
                            hooks=extensions.hooks)
    extensions.bind(lambda: dispatcher.approver, sandbox.mode)   # hooks running a file changed in session
    llm = model_client(settings, bus)
    if mcp is not None:
        mcp.bind_approver(lambda: dispatcher.approver)   # elicitations are asked like approvals
        mcp.wait_and_register()   # bounded by each server's startup_timeout; failures become notices
    gathered = gather_context(project_root, Path.cwd())
    watch_diagnostics(ctx, extensions.gate)               # [diagnostics] commands: what they run
    ctx.extra[NESTED_INSTRUCTIONS] = gathered.nested    # read_file hands over AGENTS.md/CLAUDE.md below cwd
    ctx.extra[WEB_NAMED_HOSTS] = _named_hosts(policy)   # web_fetch: hosts whose private addresses are allowed
    add_task_tool(extensions, SessionParts(project_root, session_id, settings, registry, policy,
                                           lambda: dispatcher.approver, extensions.hooks, llm, ctx.cancel,
                                           ctx.checkpointer, bus, gathered))
    protocol = configure_protocol(settings, registry, llm, bus)   # tool_protocol + prompt_profile
    callbacks = session_callbacks(loaded, state_dir, session_id, ctx, registry, policy, bus, resumed)
    callbacks.waiting.append(server_asked)   # the context window, before the first request
    extensions.skill_grants.policy = policy
    callbacks.turn_end.append(extensions.skill_grants.revoke)   # a skill's allowed-tools last one turn
    hook_context = extensions.start_session("resume" if resumed is not None else "startup")
    if extensions.hooks is not None:
        ctx.extra[SESSION_ENV_KEY] = extensions.hooks.session_env   # CLAUDE_ENV_FILE's variables for bash
    for line in [*loaded.notices, *extensions.notices]:   # broken optional files, failing SessionStart hooks
        bus(Notice(message=line))
    agent = build_agent(settings, registry, dispatcher, llm, emit=bus, protocol=protocol,
                        prompt=lambda: build_system_prompt(settings, registry, callbacks.current_mode()),
                        context=build_project_context(project_root, gathered, hook_context),
                        callbacks=callbacks, messages=messages, turn_hooks=extensions.hooks)
    if extensions.hooks is not None:         # Claude Code's transcript, mode and moments for the hooks
        extensions.hooks.attach(lambda: agent.messages, callbacks.current_mode)
        callbacks.compactor.before_compact = extensions.hooks.compacting
    return Runtime(loaded, project_root, session_id, bus, registry, ctx, policy, dispatcher, llm, agent,
                   extras={"mcp": mcp} if mcp is not None else {}, session=callbacks, extensions=extensions,
                   sandbox=sandbox, snapshots=snapshots)


def _with_hooks(bus: EventBus, extensions: Extensions) -> EventSink:
    """The bus, with axon asking for approval shown to Notification hooks first."""
    hooks = extensions.hooks
    if hooks is None:
        return bus

    def emit(event: Event) -> None:
        hooks.moments(event)
        bus(event)
    return emit


def _named_hosts(policy: PermissionPolicy) -> Callable[[], frozenset[str]]:
    """``permissions.web.hosts_named_by(policy)``, loaded at the first fetch."""
    def named() -> frozenset[str]:
        from axon_cli.policy.web import hosts_named_by

        return hosts_named_by(policy)()
    return named


def _containment(sandbox: SandboxStatus, checkpointer: Checkpointer) -> Containment:
    """The facts the policy needs for "sandboxed, undoable" and for leaving an ``auto`` sandbox."""
    uncovered = checkpointer.uncovered if isinstance(checkpointer, TurnSnapshots) else None
    return Containment(confined=sandbox.mode == "workspace-write", uncovered=uncovered, may_leave=sandbox.leavable)


def session_callbacks(loaded: LoadedSettings, state_dir: Path, session_id: str, ctx: ToolContext,
                      registry: ToolRegistry, policy: PermissionPolicy, bus: EventBus,
                      resumed: LoadedTranscript | None) -> SessionCallbacks:
    """The transcript, snapshots, compaction and cost of one session (new or resumed)."""
    import time

    settings = loaded.settings
    transcript = Transcript(state_dir, session_id, exists=resumed is not None)
    meter = CostMeter(settings)
    compactor = Compactor(settings, bus, todos=lambda: ctx.extra.get("todos"))
    callbacks = SessionCallbacks(transcript, ctx.checkpointer, compactor, meter, ctx, registry, bus,
                                 lambda: current_mode(policy, settings))
    if resumed is None:
        callbacks.meta("session", id=session_id, started=time.strftime("%Y-%m-%dT%H:%M:%S"),
                   cwd=str(Path.cwd()), model=settings.model)
        return callbacks
    transcript.claim()            # the runtime's own hold on the session, let go when it closes
    transcript.message_count = resumed.message_count
    callbacks.turns = resumed.turns
    meter.base_prompt, meter.base_completion = resumed.prompt_tokens, resumed.completion_tokens
    return callbacks


def open_session(loaded: LoadedSettings, project_root: Path, approver: Approver, *, cont: bool = False,
                 resume: str | None = None, fork_busy: bool = False) -> Runtime:
    """A new session, this project's latest one (``cont``), or session ``resume`` (an id or a unique
    prefix). Resuming restores the messages (as compacted), the permission mode (unless --mode was
    given), activated deferred tools and the todo list. A session another live process holds is a
    ``SessionInUse`` error, or (``fork_busy``: the REPL) resumed as a copy under a new id."""
    state_dir = project_root / ".axon"
    if cont and resume is not None:
        raise UsageError("give either --continue or --resume, not both")
    session_id: str | None = None
    if cont:
        session_id = latest_session_id(state_dir)
        if session_id is None:
            bad = unreadable_sessions(state_dir)
            why = f": {bad[0].relative_to(project_root)} cannot be read as a session" if bad else ""
            raise UsageError(f"no earlier session in this project to continue{why} (see `axon sessions`)")
    elif resume is not None:
        if not resume.strip():
            raise UsageError("--resume needs a session id here (see `axon sessions`)")
        session_id = resolve_session_id(state_dir, resume)
    if session_id is None:
        return build_runtime(loaded, project_root, approver)
    notices: list[str] = []
    claimed = Transcript(state_dir, session_id, exists=True)    # held until the runtime's own transcript is
    try:
        try:
            try:
                claimed.claim()
            except SessionInUse as busy:
                if not fork_busy:
                    raise
                forked = fork_session(state_dir, session_id)
                notices.append(f"session {session_id} is in use by another axon"
                               f"{f' (pid {busy.pid})' if busy.pid else ''}: continuing in a copy of it, session {forked}")
                session_id = forked
                claimed = Transcript(state_dir, session_id, exists=True)
                claimed.claim()
            resumed = load_transcript(sessions_dir(state_dir) / f"{session_id}.jsonl")
        except OSError as e:
            raise UsageError(f"cannot read session {session_id}: {e.strerror or e}") from None
        if resumed.torn_tail:
            notices.append(f"session {session_id}: its last line was cut off mid-write (a crash); that line "
                           "was dropped")
        rt = build_runtime(loaded, project_root, approver, session_id=session_id, messages=resumed.messages,
                           resumed=resumed)
    finally:
        claimed.release()
    for line in notices:
        rt.bus(Notice(message=line))
    if resumed.mode and not loaded.source("mode").startswith("flag"):
        _restore_mode(rt, resumed.mode)
    if resumed.activated:
        rt.registry.activate(resumed.activated)
    if resumed.todos is not None:
        rt.ctx.extra["todos"] = resumed.todos
    if rt.session is not None:
        rt.session.seed(rt.agent.messages, resumed.indexes)
    return rt


def _restore_mode(rt: Runtime, mode: str) -> None:
    """Resume in the session's mode unless it is wider than the mode in force now: a transcript is
    a project file (a repository can ship one), so it may narrow what axon does, never widen it."""
    from axon_cli.policy.modes import MODES, rank

    now = rt.policy.mode
    if mode not in MODES or rank(mode) <= rank(now):
        if mode in MODES:
            rt.policy.set_mode(mode)
        return
    rt.bus(Notice(message=f'this session ran in mode "{mode}"; resumed in "{now}" (a transcript never '
                          f"widens the mode: use --mode {mode} or /mode {mode})"))
