"""The user's hooks plugged into the loop: ``ToolHooks`` for dispatch, ``TurnHooks`` for the agent.

Tool calls are shown to hooks in Claude Code's vocabulary (``claude_vocab``).
- PreToolUse: the first deny wins, else the first ask, else the first allow (see
  ``tools/tool_hooks.combine`` for how that meets the permission rules).
- PostToolUse: runs after a call that succeeded and sees its masked, truncated result as Claude
  Code's ``tool_response``; a block (exit 2 or ``decision: block``) and any ``additionalContext`` are
  appended to the result the model reads.
- UserPromptSubmit: a block stops the prompt (it never joins the conversation); stdout and
  ``additionalContext`` are added after it as context.
- Stop / SubagentStop: a block sends the agent back to work with the reason as its next instruction
  (``stop_hook_active`` is true once it was sent back; ``max_turns`` bounds the loop).
- SessionStart: stdout and ``additionalContext`` join the system prompt.
- SessionEnd, PreCompact, Notification (axon asks the user for approval), SubagentStart: run for
  their side effects.
- ``continue: false`` from any of them stops the agent after the event (``halted``), with its
  ``stopReason`` for the user; ``systemMessage`` is shown to the user.

A failing hook is one notice and counts as silent; nothing here raises into the loop.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from axon_cli.agent.loop.seams import PromptVerdict
from axon_cli.kernel.events import ApprovalRequested, EventSink, Notice
from axon_cli.machinery.masking import mask
from axon_cli.session.extend.claude_vocab import from_claude, to_claude, tool_response
from axon_cli.session.extend.hook_reply import HookReply, HookResult
from axon_cli.session.extend.hook_runner import HookRunner
from axon_cli.tools.tool_hooks import HookVerdict

__all__ = ["UserHooks", "SubagentHooks", "FIRED_EVENTS"]

# the events axon has a moment for; any other (PermissionRequest, PostToolUseFailure, …) is accepted and
# never runs (``axon doctor`` says so)
FIRED_EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStart", "SubagentStop",
                "SessionStart", "SessionEnd", "PreCompact", "Notification")

log = logging.getLogger("axon.hooks")


def _masked(value: Any) -> Any:
    try:
        return json.loads(mask(json.dumps(value, ensure_ascii=False, default=str)))
    except (TypeError, ValueError):
        return mask(str(value))


class UserHooks:
    def __init__(self, runner: HookRunner, emit: EventSink) -> None:
        self.runner = runner
        self.emit = emit
        self.halt_reason: str | None = None     # a hook said continue: false
        self.session_env: dict[str, str] = {}    # what SessionStart hooks wrote to CLAUDE_ENV_FILE

    def attach(self, messages: Callable[[], list[dict[str, Any]]], mode: Callable[[], str]) -> None:
        """The conversation (copied to ``transcript_path`` before each hook runs) and the permission mode."""
        from axon_cli.session.extend.claude_transcript import ClaudeTranscript

        runner = self.runner
        transcript = ClaudeTranscript(runner.transcript_path, runner.session_id, runner.project_root)
        runner.before_run = lambda: transcript.sync(messages())
        runner.mode = mode

    def moments(self, event: Any) -> None:
        """An event of the session's bus: axon asking for approval is Claude Code's Notification."""
        if isinstance(event, ApprovalRequested) and self.runner.has("Notification"):
            from axon_cli.session.extend.claude_vocab import claude_name

            self.notify("Notification", {"message": f"axon needs your permission to use {claude_name(event.name)}",
                                         "notification_type": "permission_prompt"})

    def compacting(self, manual: bool, focus: str | None) -> None:
        self.notify("PreCompact", {"trigger": "manual" if manual else "auto", "custom_instructions": focus or ""})

    def halted(self) -> str | None:
        """Why a hook stopped the agent (``continue: false``), once; None when none did."""
        why, self.halt_reason = self.halt_reason, None
        return why

    def _run(self, event: str, fields: dict[str, Any], tool: str | None = None,
             call_id: str | None = None, args: dict[str, Any] | None = None) -> HookResult:
        if not self.runner.has(event):
            return HookResult()
        try:
            result = self.runner.run(event, fields, tool, call_id, args)
        except Exception as e:   # a bug here must not stop the loop
            log.exception("running %s hooks failed", event)
            self.emit(Notice(message=f"{event} hooks could not run: {type(e).__name__}: {e}"))
            return HookResult()
        for line in result.problems + result.messages:
            self.emit(Notice(message=line))
        stopped = result.stopped()
        if stopped is not None and self.halt_reason is None:
            self.halt_reason = stopped.stop_reason or f"a {event} hook stopped the agent"
        return result

    def _call(self, tool: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
        name, shown = to_claude(tool, _masked(args), self.runner.project_root)
        return {"tool_name": name, "tool_input": shown, "tool_use_id": call_id}

    def _source(self, reply: HookReply) -> str:
        where = reply.hook.source
        root = str(self.runner.project_root) + "/"
        where = where[len(root):] if where.startswith(root) else where.replace(str(Path.home()), "~", 1)
        command = " ".join(reply.hook.command.split())
        return f'PreToolUse hook "{command[:60]}" in {where or "config"}'

    # -- ToolHooks -----------------------------------------------------------------------------
    def guards_tools(self) -> bool:
        return self.runner.has("PreToolUse")

    def before_tool(self, call_id: str, tool: str, args: dict[str, Any]) -> HookVerdict | None:
        result = self._run("PreToolUse", self._call(tool, args, call_id), tool, call_id, args)
        stopped = result.stopped()
        if stopped is not None:
            return HookVerdict("deny", stopped.stop_reason or "a PreToolUse hook stopped the agent",
                               self._source(stopped))
        updated = result.updated_input()
        changed = None
        if updated is not None:
            changed = {**args, **from_claude(tool, args, updated, self.runner.project_root)}
        for decision in ("deny", "ask", "allow"):
            reply = result.first(decision)
            if reply is not None:
                return HookVerdict(reply.decision, reply.reason, self._source(reply),  # type: ignore[arg-type]
                                   None if decision == "deny" else changed)
        return HookVerdict("none", "", "PreToolUse hook", changed) if changed is not None else None

    def after_tool(self, call_id: str, tool: str, args: dict[str, Any], result: str) -> str | None:
        fields = {**self._call(tool, args, call_id),
                  "tool_response": tool_response(tool, _masked(args), result, self.runner.project_root)}
        replies = self._run("PostToolUse", fields, tool, call_id, args)
        notes = [f"[PostToolUse hook: {r.reason}]" for r in replies.replies if r.decision == "deny" and r.reason]
        context = replies.context(plain_output=False)
        notes += [f"[PostToolUse hook context: {context}]"] if context else []
        return "\n".join(notes) or None

    # -- TurnHooks -----------------------------------------------------------------------------
    def prompt_submitted(self, prompt: str) -> PromptVerdict:
        result = self._run("UserPromptSubmit", {"prompt": prompt})
        stopped, self.halt_reason = result.stopped(), None
        if stopped is not None:
            return PromptVerdict(blocked=True, reason=stopped.stop_reason or "a UserPromptSubmit hook stopped it")
        blocked = result.first("deny")
        if blocked is not None:
            return PromptVerdict(blocked=True, reason=blocked.reason)
        context = result.context(plain_output=True)
        return PromptVerdict(context=f"[context added by a UserPromptSubmit hook]\n{context}" if context else "")

    def about_to_stop(self, answer: str, again: bool, event: str = "Stop") -> str | None:
        result = self._run(event, {"stop_hook_active": again, "last_assistant_message": answer})
        blocked = result.first("deny")
        if blocked is None or result.stopped() is not None:
            self.halt_reason = None            # stopping anyway
            return None
        return f"[a {event} hook does not let you stop yet] {blocked.reason or 'continue the task'}"

    # -- moments with side effects only ------------------------------------------------------------
    def notify(self, event: str, fields: dict[str, Any]) -> None:
        """Run ``event``'s hooks for what they do (SessionEnd, PreCompact, Notification, SubagentStart)."""
        self._run(event, fields)

    # -- SessionStart ----------------------------------------------------------------------------
    def session_start(self, source: str) -> tuple[str, list[str]]:
        """The context SessionStart hooks add to the system prompt ("" when none), and their problems
        (the session is being built: nobody listens to events yet)."""
        if not self.runner.has("SessionStart"):
            return "", []
        from axon_cli.machinery.sandbox.child_env import child_env
        from axon_cli.session.extend.session_env import env_file, read_env_file

        try:
            self.runner.env_file = env_file(self.runner.session_id)
            result = self.runner.run("SessionStart", {"source": source})
            self.session_env = read_env_file(self.runner.env_file, child_env())
        except Exception as e:
            log.exception("running SessionStart hooks failed")
            return "", [f"SessionStart hooks could not run: {type(e).__name__}: {e}"]
        context = result.context(plain_output=True)
        return (f"## Context from SessionStart hooks\n{context}" if context else ""), result.problems


class SubagentHooks:
    """The ``TurnHooks`` of a sub-agent: SubagentStart when it starts, SubagentStop before it stops."""

    def __init__(self, hooks: UserHooks, agent_type: str) -> None:
        self.hooks = hooks
        self.agent_type = agent_type

    def prompt_submitted(self, prompt: str) -> PromptVerdict:
        self.hooks.notify("SubagentStart", {"agent_type": self.agent_type})
        return PromptVerdict()

    def about_to_stop(self, answer: str, again: bool) -> str | None:
        return self.hooks.about_to_stop(answer, again, "SubagentStop")

    def halted(self) -> str | None:
        return self.hooks.halted()
