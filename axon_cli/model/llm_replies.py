"""How the model client reads a reply into an AssistantTurn: a stream's chunks (text, reasoning,
usage, tool calls assembled by index), a non-streamed ChatCompletion, and a non-streamed reply shown
as one delta of each kind. The client's two signals live here too: ``_NoStream`` (a stream that
ended without any content: ask again without streaming) and ``_Retryable`` (cut off, no choices).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from axon_cli.model.llm_http import extra_field
from axon_cli.model.turns import AssistantTurn, cached_tokens
from axon_cli.tools.dispatch import ToolCall

__all__ = ["ReplyReader", "assemble", "plain_turn"]


class _NoStream(Exception):
    """The endpoint accepted a streaming request but streamed nothing, or said it cannot stream."""


class _Retryable(Exception):
    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class ReplyReader(Protocol):
    """What reading a reply uses of the client (``LLMClient``)."""

    _streamed_any: bool

    def unique_call_id(self, call_id: str) -> str: ...


def assemble(client: ReplyReader, stream: Any, on_text: Callable[[str], None] | None,
             on_reasoning: Callable[[str], None] | None) -> AssistantTurn:
    """The turn of a streamed response, each delta handed on as it arrives."""
    turn = AssistantTurn()
    parts: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    for chunk in stream:
        _identity(turn, chunk)
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            turn.prompt_tokens = getattr(usage, "prompt_tokens", 0) or 0
            turn.completion_tokens = getattr(usage, "completion_tokens", 0) or 0
            turn.cached_tokens = cached_tokens(usage)
        for choice in chunk.choices or []:
            delta = choice.delta
            if delta is not None:
                reasoning = extra_field(delta, "reasoning_content") or extra_field(delta, "reasoning")
                if reasoning and isinstance(reasoning, str):
                    client._streamed_any = True
                    turn.reasoning += reasoning
                    if on_reasoning:
                        on_reasoning(reasoning)
                if delta.content:
                    client._streamed_any = True
                    parts.append(delta.content)
                    if on_text:
                        on_text(delta.content)
                for tc in delta.tool_calls or []:
                    slot = calls.setdefault(tc.index if tc.index is not None else len(calls),
                                            {"id": "", "name": "", "arguments": []})
                    if tc.id:
                        slot["id"] = tc.id
                    if tc.function is not None:
                        if tc.function.name:
                            slot["name"] += tc.function.name
                        if tc.function.arguments:
                            slot["arguments"].append(tc.function.arguments)
            if choice.finish_reason:
                turn.finish_reason = choice.finish_reason
    if turn.finish_reason is None:
        if not parts and not calls and not turn.reasoning:
            raise _NoStream("the stream ended without any content")
        raise _Retryable("the stream ended without a finish_reason (cut off)")
    turn.content = "".join(parts)
    for index in sorted(calls):
        slot = calls[index]
        turn.tool_calls.append(ToolCall(id=client.unique_call_id(slot["id"]), name=slot["name"],
                                        arguments="".join(slot["arguments"])))
    return turn


def plain_turn(client: ReplyReader, response: Any) -> AssistantTurn:
    """The turn of a non-streamed response."""
    choices = getattr(response, "choices", None) or []
    if not choices:
        raise _Retryable("the non-streaming response has no choices")
    turn = AssistantTurn(finish_reason=choices[0].finish_reason or "stop")
    _identity(turn, response)
    message = choices[0].message
    turn.content = message.content or ""
    reasoning = extra_field(message, "reasoning_content") or extra_field(message, "reasoning")
    turn.reasoning = reasoning if isinstance(reasoning, str) else ""
    for tc in message.tool_calls or []:
        function = getattr(tc, "function", None)
        turn.tool_calls.append(ToolCall(id=client.unique_call_id(tc.id or ""), name=getattr(function, "name", "") or "",
                                        arguments=getattr(function, "arguments", "") or ""))
    usage = getattr(response, "usage", None)
    if usage is not None:
        turn.prompt_tokens = getattr(usage, "prompt_tokens", 0) or 0
        turn.completion_tokens = getattr(usage, "completion_tokens", 0) or 0
        turn.cached_tokens = cached_tokens(usage)
    return turn


def _identity(turn: AssistantTurn, part: Any) -> None:
    """The completion's id and the answering model, from the first chunk (or response) that names them."""
    if not turn.response_id and isinstance(getattr(part, "id", None), str):
        turn.response_id = part.id[:200]
    if not turn.response_model and isinstance(getattr(part, "model", None), str):
        turn.response_model = part.model[:200]


def _replay(turn: AssistantTurn, on_text: Callable[[str], None] | None,
            on_reasoning: Callable[[str], None] | None) -> None:
    """Show a non-streamed reply as one delta of each kind, so frontends still print it."""
    if turn.reasoning and on_reasoning:
        on_reasoning(turn.reasoning)
    if turn.content and on_text:
        on_text(turn.content)
