"""A sub-agent's events turned into its progress on the session's event bus.

The sub-agent's own tool calls and text stay out of the session's stream: each becomes a
``SubagentUpdate`` for the ``task`` call that started it (turns, tool calls, the latest action,
tokens), so the REPL can show one line per sub-agent. Approval events pass through unchanged (the
REPL pauses its live region for the question), notices and errors pass through prefixed with the
task. Streaming text checks the cancel event, so Ctrl-C stops a sub-agent mid-reply.
"""

from __future__ import annotations

import threading
from typing import Literal

from axon_cli.kernel.events import (
    ApprovalRequested,
    AssistantDelta,
    Error,
    Event,
    EventSink,
    Notice,
    PermissionDecision,
    Retrying,
    SubagentUpdate,
    ToolCallBegin,
    ToolCallEnd,
    TurnStarted,
    Usage,
)
from axon_cli.tools.spec import Cancelled

__all__ = ["ProgressSink"]

Status = Literal["running", "done", "failed", "interrupted"]
_FINAL: dict[str, Status] = {"final": "done", "interrupted": "interrupted", "max_turns": "failed",
                             "error": "failed"}


class ProgressSink:
    def __init__(self, emit: EventSink, cancel: threading.Event, call_id: str, agent: str,
                 description: str) -> None:
        self.emit = emit
        self.cancel = cancel
        self.call_id = call_id
        self.agent = agent
        self.description = description
        self.turns = 0
        self.tool_calls = 0
        self.last_action = ""
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def __call__(self, event: Event) -> None:
        if isinstance(event, AssistantDelta):
            if self.cancel.is_set():
                raise Cancelled()
        elif isinstance(event, TurnStarted):
            self.turns = event.turn
            self._update()
        elif isinstance(event, ToolCallBegin):
            self.tool_calls += 1
            self.last_action = f"{event.name}({event.summary})" if event.summary else event.name
            self._update()
        elif isinstance(event, ToolCallEnd) and not event.ok:
            self.last_action = f"{event.name} failed"
            self._update()
        elif isinstance(event, Usage):
            self.prompt_tokens = event.session_prompt_tokens
            self.completion_tokens = event.session_completion_tokens
        elif isinstance(event, (ApprovalRequested, PermissionDecision)):
            self.emit(event)
        elif isinstance(event, (Notice, Error)):
            self.note(event.message)
        elif isinstance(event, Retrying):
            self.note(f"retrying ({event.attempt}/{event.max_attempts}): {event.reason}")

    def note(self, message: str) -> None:
        self.emit(Notice(message=f"task ({self.description}): {message}"))

    def finish(self, stop_reason: str) -> None:
        self._update(_FINAL.get(stop_reason, "failed"))

    def _update(self, status: Status = "running") -> None:
        self.emit(SubagentUpdate(parent_call_id=self.call_id, agent=self.agent, description=self.description,
                                 status=status, turns=self.turns, tool_calls=self.tool_calls,
                                 last_action=self.last_action[:120], prompt_tokens=self.prompt_tokens,
                                 completion_tokens=self.completion_tokens))
