"""The user's hooks plugged into the loop: ``ToolHooks`` for dispatch, ``TurnHooks`` for the agent.

- PreToolUse: the first deny wins, else the first ask, else the first allow (see
  ``tools/tool_hooks.combine`` for how that meets the permission rules).
- PostToolUse: runs after a call that succeeded and sees its masked, truncated result; a block (exit 2 or ``decision: block``) and any
  ``additionalContext`` are appended to the result the model reads.
- UserPromptSubmit: a block stops the prompt (it never joins the conversation); stdout and
  ``additionalContext`` are added after it as context.
- Stop: a block sends the agent back to work with the reason as its next instruction.
- SessionStart: stdout and ``additionalContext`` join the system prompt.

A failing hook is one notice and counts as silent; nothing here raises into the loop.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from axon_cli.events import EventSink, Notice
from axon_cli.extend.hook_runner import HookReply, HookResult, HookRunner
from axon_cli.loop.callbacks import PromptVerdict
from axon_cli.masking import mask
from axon_cli.tools.tool_hooks import HookVerdict

__all__ = ["UserHooks"]

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

    def _run(self, event: str, fields: dict[str, Any], tool: str | None = None,
             call_id: str | None = None) -> HookResult:
        if not self.runner.has(event):
            return HookResult()
        try:
            result = self.runner.run(event, fields, tool, call_id)
        except Exception as e:   # a bug here must not stop the loop
            log.exception("running %s hooks failed", event)
            self.emit(Notice(message=f"{event} hooks could not run: {type(e).__name__}: {e}"))
            return HookResult()
        for problem in result.problems:
            self.emit(Notice(message=problem))
        return result

    def _source(self, reply: HookReply) -> str:
        where = reply.hook.source
        root = str(self.runner.project_root) + "/"
        where = where[len(root):] if where.startswith(root) else where.replace(str(Path.home()), "~", 1)
        command = " ".join(reply.hook.command.split())
        return f'PreToolUse hook "{command[:60]}" in {where or "config"}'

    # -- ToolHooks -----------------------------------------------------------------------------
    def before_tool(self, call_id: str, tool: str, args: dict[str, Any]) -> HookVerdict | None:
        result = self._run("PreToolUse", {"tool_name": tool, "tool_input": _masked(args)}, tool, call_id)
        for decision in ("deny", "ask", "allow"):
            reply = result.first(decision)
            if reply is not None:
                return HookVerdict(reply.decision, reply.reason, self._source(reply))  # type: ignore[arg-type]
        return None

    def after_tool(self, call_id: str, tool: str, args: dict[str, Any], result: str) -> str | None:
        fields = {"tool_name": tool, "tool_input": _masked(args), "tool_response": {"output": result}}
        replies = self._run("PostToolUse", fields, tool, call_id)
        notes = [f"[PostToolUse hook: {r.reason}]" for r in replies.replies if r.decision == "deny" and r.reason]
        context = replies.context(plain_output=False)
        notes += [f"[PostToolUse hook context: {context}]"] if context else []
        return "\n".join(notes) or None

    # -- TurnHooks -----------------------------------------------------------------------------
    def prompt_submitted(self, prompt: str) -> PromptVerdict:
        result = self._run("UserPromptSubmit", {"prompt": prompt})
        blocked = result.first("deny")
        if blocked is not None:
            return PromptVerdict(blocked=True, reason=blocked.reason)
        context = result.context(plain_output=True)
        return PromptVerdict(context=f"[context added by a UserPromptSubmit hook]\n{context}" if context else "")

    def about_to_stop(self, answer: str, again: bool) -> str | None:
        result = self._run("Stop", {"stop_hook_active": again, "last_assistant_message": answer})
        blocked = result.first("deny")
        if blocked is None:
            return None
        return f"[a Stop hook does not let you stop yet] {blocked.reason or 'continue the task'}"

    # -- SessionStart ----------------------------------------------------------------------------
    def session_start(self, source: str) -> tuple[str, list[str]]:
        """The context SessionStart hooks add to the system prompt ("" when none), and their problems
        (the session is being built: nobody listens to events yet)."""
        if not self.runner.has("SessionStart"):
            return "", []
        try:
            result = self.runner.run("SessionStart", {"source": source})
        except Exception as e:
            log.exception("running SessionStart hooks failed")
            return "", [f"SessionStart hooks could not run: {type(e).__name__}: {e}"]
        context = result.context(plain_output=True)
        return (f"## Context from SessionStart hooks\n{context}" if context else ""), result.problems
