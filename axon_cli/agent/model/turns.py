"""What one model request sends (``with_context``) and returns (an assistant turn), and the session's
token usage."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from axon_cli.tools.dispatch import ToolCall

__all__ = ["AssistantTurn", "SessionUsage", "with_context", "cached_tokens"]

@dataclass
class AssistantTurn:
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    reasoning: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int | None = None    # of the prompt, when the server reports them
    usage_reported: bool = False        # the server sent usage (a stream may not: then the counts are 0)
    call_errors: list[str] = field(default_factory=list)   # text calls that could not be used
    response_id: str = ""               # the completion's id, as the server named it
    response_model: str = ""            # the model that answered, as the server named it

    def message(self) -> dict[str, Any]:
        """The assistant message as it goes back into the conversation."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content or None}
        if self.tool_calls:
            msg["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls if c.source == "native"
            ] or None
            if msg["tool_calls"] is None:
                del msg["tool_calls"]
        if msg["content"] is None and "tool_calls" not in msg:
            msg["content"] = ""
        return msg


@dataclass
class SessionUsage:
    """Tokens of the session's requests as the server reported them; ``unreported``: requests whose
    server sent no usage (then the sums are only a lower bound, and ``as_dict`` is None)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0
    last_prompt_tokens: int = 0
    unreported: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, turn: AssistantTurn) -> None:
        self.prompt_tokens += turn.prompt_tokens
        self.completion_tokens += turn.completion_tokens
        self.requests += 1
        self.unreported += not turn.usage_reported
        if turn.prompt_tokens:
            self.last_prompt_tokens = turn.prompt_tokens

    def as_dict(self) -> dict[str, int] | None:
        """The totals, or None when a request's usage was not reported (a sum would understate it)."""
        return None if self.unreported else self.counted()

    def counted(self) -> dict[str, int]:
        """The sums of the tokens the server reported (a lower bound when ``unreported``)."""
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "total_tokens": self.total_tokens}


def with_context(messages: list[dict[str, Any]], context: str) -> list[dict[str, Any]]:
    """``messages`` with ``context`` in front of the first user message (a new list and message;
    the conversation itself never holds it, so compaction and resume need not know about it)."""
    if not context:
        return messages
    for i, msg in enumerate(messages):
        if msg.get("role") != "user":
            continue
        content = msg.get("content")
        if isinstance(content, list):
            content = [{"type": "text", "text": context}, *content]
        else:
            content = f"{context}\n\n{content or ''}"
        return [*messages[:i], {**msg, "content": content}, *messages[i + 1:]]
    return messages


def cached_tokens(usage: Any) -> int | None:
    """The prompt tokens the server served from its cache (``usage.prompt_tokens_details.cached_tokens``,
    an object or a dict), or None when it does not say."""
    details = getattr(usage, "prompt_tokens_details", None)
    if details is None and isinstance(usage, dict):
        details = usage.get("prompt_tokens_details")
    value = details.get("cached_tokens") if isinstance(details, dict) else getattr(details, "cached_tokens", None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None
