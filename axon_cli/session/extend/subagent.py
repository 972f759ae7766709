"""One sub-agent: a nested ``Agent`` with its own messages, context and tools, for one ``task`` call.

What it shares with the session, so it can never do more than the parent could: the permission
policy and the approver (every call is checked and asked about as the parent's would be), the
user's PreToolUse/PostToolUse hooks, the checkpointer (``/undo`` restores its edits), the audit
log, and the cancel event (Ctrl-C stops every running sub-agent). What is its own: the messages,
the record of files read (read-before-edit), the tool registry (its definition's tools, or every
tool of the session for a Claude Code agent without ``tools``; never ``task`` itself), and a model client (its own model, if the definition names one; the quirks the
parent's client learned about the endpoint carry over). Its usage is added to the session's. It is
built by the same factory as the session's agent (``assembly.py``).
"""

from __future__ import annotations

import dataclasses
import threading

from axon_cli.agent.assembly import build_agent, model_client
from axon_cli.agent.loop.results import RunResult
from axon_cli.agent.loop.seams import AgentCallbacks, Loop, TurnHooks
from axon_cli.agent.model.llm import LLMClient
from axon_cli.kernel.events import ApprovalAnswer, ApprovalRequest, Approver
from axon_cli.kernel.turn import UserTurn
from axon_cli.policy.web import hosts_named_by
from axon_cli.session.conversation.context import (
    build_project_context,
    build_system_prompt,
    load_template,
)
from axon_cli.session.extend.agents import ALL_TOOLS, AgentDefinition
from axon_cli.session.extend.session_parts import SessionParts
from axon_cli.session.extend.subagent_progress import ProgressSink
from axon_cli.settings.config import Settings
from axon_cli.tools.builtin.web.web_tool import NAMED_HOSTS as WEB_NAMED_HOSTS
from axon_cli.tools.dispatch import Dispatcher
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import Cancelled, ToolContext, ToolError, ToolOutput

__all__ = ["SessionParts", "run_subagent", "EXCLUDED_TOOLS"]

EXCLUDED_TOOLS = ("task", "tool_search")   # no nesting; a sub-agent's tools are all active already


class _StopWhenCancelled(AgentCallbacks):
    def __init__(self, cancel: threading.Event) -> None:
        self.cancel = cancel

    def before_request(self, agent: Loop) -> None:
        if self.cancel.is_set():
            raise Cancelled()


def _registry(parts: SessionParts, names: tuple[str, ...]) -> tuple[ToolRegistry, list[str]]:
    """The tools ``names`` (``ALL_TOOLS``: every tool of the session) and the names that have none."""
    if names == ALL_TOOLS:
        names = tuple(n for n in parts.registry.names() if n not in EXCLUDED_TOOLS)
    specs, missing = [], []
    for name in dict.fromkeys(names):
        spec = parts.registry.get(name)
        if spec is None or name in EXCLUDED_TOOLS:
            missing.append(name)
        else:
            specs.append(dataclasses.replace(spec, deferred=False))
    return ToolRegistry(specs), missing


def _system_prompt(parts: SessionParts, settings: Settings, registry: ToolRegistry,
                   definition: AgentDefinition) -> str:
    """The session's system prompt with the definition's role (the protocol's part is added after)."""
    base = build_system_prompt(settings, registry, parts.policy.mode, main=False)
    role = load_template("subagent.md").format(role=definition.role or "")
    return f"{base.rstrip()}\n\n{role.strip()}\n"


def run_subagent(parts: SessionParts, definition: AgentDefinition, prompt: str, description: str,
                 call_id: str) -> ToolOutput:
    """Run the sub-agent to its final answer; the answer (and usage) is the task call's result."""
    settings = parts.settings.model_copy(update={"model": definition.model} if definition.model else {})
    registry, missing = _registry(parts, definition.tools)
    sink = ProgressSink(parts.emit, parts.cancel, call_id, definition.name, description)
    if missing:
        sink.note(f"agent {definition.name} ({definition.source}): tools not available to it: {', '.join(missing)}")
    ctx = ToolContext(project_root=parts.project_root, state_dir=parts.project_root / ".axon",
                      session_id=parts.session_id, settings=settings, cancel=parts.cancel, emit=sink,
                      registry=registry, checkpointer=parts.checkpointer, mode=lambda: parts.policy.mode)
    ctx.extra[WEB_NAMED_HOSTS] = hosts_named_by(parts.policy)   # web_fetch: as in the parent session
    llm = model_client(settings, sink, endpoint=parts.llm)
    dispatcher = Dispatcher(registry, ctx, policy=parts.policy, approver=_saying_who(parts.approver(), description),
                            emit=sink, hooks=parts.hooks)
    agent = build_agent(settings, registry, dispatcher, llm, emit=sink,
                        prompt=_system_prompt(parts, settings, registry, definition),
                        context=build_project_context(parts.project_root, parts.gathered),
                        callbacks=_StopWhenCancelled(parts.cancel), shared_cancel=True,
                        turn_hooks=_turn_hooks(parts, definition))
    try:
        result = agent.run(UserTurn(prompt), max_turns=definition.max_turns)
    except Cancelled:
        result = RunResult("interrupted by user", "interrupted", 0)
    finally:
        from axon_cli.tools.builtin.bash.background import close_jobs

        close_jobs(ctx.extra)        # its background jobs end with it (the parent cannot name them)
        agent.close()
        _add_usage(parts, llm)
    sink.finish(result.stop_reason)
    return _output(result, definition, sink, llm)


def _turn_hooks(parts: SessionParts, definition: AgentDefinition) -> TurnHooks | None:
    """SubagentStart/SubagentStop hooks around the sub-agent (the session's ``UserHooks``)."""
    from axon_cli.session.extend.hook_seams import SubagentHooks, UserHooks

    return SubagentHooks(parts.hooks, definition.name) if isinstance(parts.hooks, UserHooks) else None


def _saying_who(approver: Approver, description: str) -> Approver:
    """The session's approver, with the question saying which sub-agent asks."""
    def ask(request: ApprovalRequest) -> ApprovalAnswer:
        why = f"{request.reason} (asked by the sub-agent \"{description}\")"
        return approver(request.model_copy(update={"reason": why}))
    return ask


def _add_usage(parts: SessionParts, llm: LLMClient) -> None:
    with parts.usage_lock:
        parts.llm.usage.prompt_tokens += llm.usage.prompt_tokens
        parts.llm.usage.completion_tokens += llm.usage.completion_tokens
        parts.llm.usage.unreported += llm.usage.unreported


def _output(result: RunResult, definition: AgentDefinition, sink: ProgressSink, llm: LLMClient) -> ToolOutput:
    usage = llm.usage
    stats = (f"{sink.turns} turn{'s' if sink.turns != 1 else ''}, {sink.tool_calls} tool call"
             f"{'s' if sink.tool_calls != 1 else ''}, "
             + ("tokens not reported by the endpoint" if usage.unreported else
                f"{usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens"))
    if result.stop_reason == "interrupted":
        raise Cancelled()
    if result.stop_reason == "error":
        raise ToolError(f"the sub-agent failed: {result.error or result.result}")
    if result.stop_reason == "max_turns":
        return ToolOutput(f"The sub-agent ({definition.name}) reached its limit of {definition.max_turns} turns "
                          f"without a final answer ({stats}).", is_error=True,
                          summary=f"no answer within {definition.max_turns} turns")
    footer = f"\n\n[sub-agent {definition.name}: {stats}]"
    return ToolOutput(result.result.strip() + footer, summary=f"answered ({stats})",
                      display={"agent": definition.name, "turns": sink.turns, "tool_calls": sink.tool_calls,
                               "prompt_tokens": usage.prompt_tokens,
                               "completion_tokens": usage.completion_tokens})
