"""Typed events out of the core, and the approval interface into it.

The core (agent, dispatch) never prints and never reads the keyboard: it calls an ``EventSink``
with these records and asks an ``Approver`` when a call needs a yes/no. The REPL, ``axon run``'s
text output and its stream-json output are consumers of the same events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Event", "SessionStarted", "TurnStarted", "AssistantDelta", "AssistantMessage", "ToolCallBegin",
    "ToolCallEnd", "ApprovalRequested", "PermissionDecision", "Usage", "Compacted", "Retrying",
    "Notice", "TodoUpdated", "SubagentUpdate", "TurnComplete", "Error", "EventSink", "ApprovalRequest",
    "ApprovalAnswer", "Approver", "AutoApprover", "DenyApprover", "null_sink", "InputField", "InputRequest",
    "InputAnswer", "ask_user_input",
]


class Event(BaseModel):
    # each kind's validator is built when the first event of that kind is made: a run makes a few
    # of the kinds, and building all of them up front cost `axon run` ≈ 8 ms (-X importtime)
    model_config = ConfigDict(defer_build=True)
    type: str

    def to_json(self) -> str:
        return self.model_dump_json()


class SessionStarted(Event):
    type: Literal["session_started"] = "session_started"
    session_id: str
    model: str
    cwd: str
    mode: str
    tools: list[str] = Field(default_factory=list)
    endpoint: str = ""                # the model endpoint's host:port (never a path or credentials)


class TurnStarted(Event):
    type: Literal["turn_started"] = "turn_started"
    turn: int


class AssistantDelta(Event):
    """A fragment of streamed assistant text (``kind`` is "text" or "reasoning")."""

    type: Literal["assistant_delta"] = "assistant_delta"
    text: str
    kind: Literal["text", "reasoning"] = "text"


class AssistantMessage(Event):
    type: Literal["assistant_message"] = "assistant_message"
    content: str
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)
    finish_reason: str | None = None


class ToolCallBegin(Event):
    type: Literal["tool_call_begin"] = "tool_call_begin"
    call_id: str
    name: str
    arguments: dict[str, Any] | str
    summary: str = ""
    source: Literal["native", "text"] = "native"


class ToolCallEnd(Event):
    type: Literal["tool_call_end"] = "tool_call_end"
    call_id: str
    name: str
    ok: bool
    output: str
    summary: str = ""
    duration_ms: int = 0
    truncated: bool = False
    spill_path: str | None = None
    display: dict[str, Any] = Field(default_factory=dict)


class ApprovalRequested(Event):
    type: Literal["approval_requested"] = "approval_requested"
    call_id: str
    name: str
    reason: str
    destructive: bool = False
    outside_sandbox: bool = False     # once approved, the call runs outside the sandbox
    outside_reason: str = ""          # why: "git commit writes .git", "curl needs the network", …


class PermissionDecision(Event):
    type: Literal["permission_decision"] = "permission_decision"
    call_id: str
    name: str
    decision: Literal["allow", "ask", "deny"]
    final: Literal["allow", "deny"]
    decided_by: str
    reason: str = ""
    outside_sandbox: bool = False     # the call runs (or, denied, would have run) outside the sandbox
    outside_reason: str = ""


class Usage(Event):
    """One model request's tokens (None when the server did not report them; ``cached_tokens``: of
    the prompt, when the server says), its latency, and the session's totals (of the requests whose
    usage was reported) and cost so far (None when unknown)."""

    type: Literal["usage"] = "usage"
    prompt_tokens: int | None = 0
    completion_tokens: int | None = 0
    total_tokens: int | None = 0
    cached_tokens: int | None = None
    model: str = ""
    latency_ms: int = 0
    session_prompt_tokens: int = 0
    session_completion_tokens: int = 0
    cost_usd: float | None = None
    response_id: str = ""             # the completion's id and the model that answered, as the server
    response_model: str = ""          # named them ("" when it did not)


class Compacted(Event):
    type: Literal["compacted"] = "compacted"
    before_tokens: int
    after_tokens: int
    method: str


class Retrying(Event):
    type: Literal["retrying"] = "retrying"
    attempt: int
    max_attempts: int
    delay_s: float
    reason: str


class Notice(Event):
    """Something the user should know that is not an error (a fallback taken, a nudge sent)."""

    type: Literal["notice"] = "notice"
    message: str


class TodoUpdated(Event):
    type: Literal["todo_updated"] = "todo_updated"
    todos: list[dict[str, Any]]


class SubagentUpdate(Event):
    """Progress of the sub-agent that the ``task`` call ``parent_call_id`` started (its own tool calls
    are not separate events: the REPL shows the whole sub-agent as one line)."""

    type: Literal["subagent_update"] = "subagent_update"
    parent_call_id: str
    agent: str
    description: str
    status: Literal["running", "done", "failed", "interrupted"] = "running"
    turns: int = 0
    tool_calls: int = 0
    last_action: str = ""             # the sub-agent's latest tool call, e.g. "read_file(src/a.py)"
    prompt_tokens: int = 0
    completion_tokens: int = 0


class TurnComplete(Event):
    type: Literal["turn_complete"] = "turn_complete"
    result: str
    num_turns: int
    stop_reason: Literal["final", "max_turns", "interrupted", "error"]


class Error(Event):
    type: Literal["error"] = "error"
    message: str


EventSink = Callable[[Event], None]


def null_sink(event: Event) -> None:
    """An event sink that drops everything."""


class ApprovalRequest(BaseModel):
    """What a frontend needs to ask the user about one tool call."""

    call_id: str
    tool: str
    arguments: dict[str, Any]
    summary: str                      # one line: the command, or "edit src/x.py"
    reason: str                       # why it asks (rule or mode)
    destructive: bool = False
    preview: str = ""                 # a diff for edits/writes, the command for bash
    suggested_rule: str | None = None  # the narrowest rule that would allow this call
    outside_sandbox: bool = False     # approved, it runs outside the sandbox (why: ``outside_reason``)
    outside_reason: str = ""
    wider_mode: str = ""              # the narrowest wider mode that would run it unasked ("auto")


class ApprovalAnswer(BaseModel):
    approved: bool
    remember: Literal["no", "session", "project"] = "no"
    message: str = ""                 # a reason that goes back to the model with a denial


class Approver(Protocol):
    def __call__(self, request: ApprovalRequest) -> ApprovalAnswer: ...


class AutoApprover:
    """Approves every ask (``axon run --yes``); deny rules are never asked, so never approved."""

    def __call__(self, request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer(approved=True)


class DenyApprover:
    """Denies every ask (``axon run`` without ``--yes``) and says how to allow it."""

    def __call__(self, request: ApprovalRequest) -> ApprovalAnswer:
        how = "re-run with --yes"
        if request.wider_mode:
            how += f", or with --mode {request.wider_mode}"
        if request.suggested_rule:
            how += f', or add the allow rule "{request.suggested_rule}" to .axon/permissions.toml'
        return ApprovalAnswer(approved=False, message=f"axon run is non-interactive ({how})")


class InputField(BaseModel):
    """One value a server asks the user for (a property of an elicitation's schema)."""

    name: str
    title: str = ""
    description: str = ""
    kind: Literal["string", "number", "integer", "boolean"] = "string"
    required: bool = False
    choices: list[str] = Field(default_factory=list)


class InputRequest(BaseModel):
    """A question from outside the conversation (an MCP server's elicitation): a message, and the
    fields to fill in or a URL the user is asked to open."""

    source: str                       # who asks: "MCP server 'notes'"
    message: str
    fields: list[InputField] = Field(default_factory=list)
    url: str = ""


class InputAnswer(BaseModel):
    action: Literal["accept", "decline", "cancel"]
    values: dict[str, str] = Field(default_factory=dict)   # as typed; the asker converts them
    message: str = ""


def ask_user_input(approver: object, request: InputRequest) -> InputAnswer:
    """Ask through the approver when it can ask for input (the REPL's ``ask_input``); an approver
    that cannot (``axon run``, ACP) declines, saying why."""
    ask = getattr(approver, "ask_input", None)
    if not callable(ask):
        return InputAnswer(action="decline", message="axon is running non-interactively: no one to ask")
    answer = ask(request)
    return answer if isinstance(answer, InputAnswer) else InputAnswer(action="cancel")
