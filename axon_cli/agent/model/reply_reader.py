"""How the model client reads a reply into an AssistantTurn: a stream's chunks (text, reasoning,
usage, tool calls assembled by index), a non-streamed ChatCompletion, and a non-streamed reply shown
as one delta of each kind. The client's two signals live here too: ``NoStream`` (a stream that
ended without any content: ask again without streaming) and ``Retryable`` (cut off, no choices).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

from axon_cli.agent.model.llm_http import extra_field
from axon_cli.agent.model.reply_deadline import ReplyClock
from axon_cli.agent.model.turns import AssistantTurn, cached_tokens
from axon_cli.tools.dispatch import ToolCall

__all__ = ["ReplyReader", "assemble", "plain_turn"]


class NoStream(Exception):
    """The endpoint accepted a streaming request but streamed nothing, or said it cannot stream."""


class Retryable(Exception):
    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class ReplyReader(Protocol):
    """What reading a reply uses of the client (``LLMClient``)."""

    _streamed_any: bool
    clock: ReplyClock

    def unique_call_id(self, call_id: str) -> str: ...


def assemble(client: ReplyReader, stream: Any, on_text: Callable[[str], None] | None,
             on_reasoning: Callable[[str], None] | None) -> AssistantTurn:
    """The turn of a streamed response, each delta handed on as it arrives. Any part of the reply
    (text, reasoning, a tool call) is progress: the attempt's deadline moves on."""
    turn = AssistantTurn()
    parts: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    for chunk in stream:
        _identity(turn, chunk)
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            _read_usage(turn, usage)
        for choice in _listed(getattr(chunk, "choices", None)):
            delta = getattr(choice, "delta", None)
            if delta is not None:
                reasoning = extra_field(delta, "reasoning_content") or extra_field(delta, "reasoning")
                if reasoning and isinstance(reasoning, str):
                    _progress(client)
                    turn.reasoning += reasoning
                    if on_reasoning:
                        on_reasoning(reasoning)
                content = _text(getattr(delta, "content", None))
                if content:
                    _progress(client)
                    parts.append(content)
                    if on_text:
                        on_text(content)
                for tc in _listed(getattr(delta, "tool_calls", None)):
                    _progress(client)
                    index = getattr(tc, "index", None)
                    slot = calls.setdefault(index if isinstance(index, int) else len(calls),
                                            {"id": "", "name": "", "arguments": []})
                    if isinstance(getattr(tc, "id", None), str) and tc.id:
                        slot["id"] = tc.id
                    function = getattr(tc, "function", None)
                    if function is not None:
                        slot["name"] += _text(getattr(function, "name", None))
                        slot["arguments"].append(_arguments(getattr(function, "arguments", None)))
            finish = getattr(choice, "finish_reason", None)
            if finish and isinstance(finish, str):
                turn.finish_reason = finish
    if turn.finish_reason is None:
        if not parts and not calls and not turn.reasoning:
            raise NoStream("the stream ended without any content")
        raise Retryable("the stream ended without a finish_reason (cut off)")
    turn.content = "".join(parts)
    for index in sorted(calls):
        slot = calls[index]
        turn.tool_calls.append(ToolCall(id=client.unique_call_id(slot["id"]), name=slot["name"],
                                        arguments="".join(slot["arguments"])))
    return turn


def plain_turn(client: ReplyReader, response: Any) -> AssistantTurn:
    """The turn of a non-streamed response."""
    choices = _listed(getattr(response, "choices", None))
    if not choices:
        raise Retryable("the non-streaming response has no choices")
    finish = getattr(choices[0], "finish_reason", None)
    message = getattr(choices[0], "message", None)
    if message is None:
        raise Retryable("the non-streaming response's choice has no message")
    turn = AssistantTurn(finish_reason=finish if finish and isinstance(finish, str) else "stop")
    _identity(turn, response)
    turn.content = _text(getattr(message, "content", None))
    reasoning = extra_field(message, "reasoning_content") or extra_field(message, "reasoning")
    turn.reasoning = reasoning if isinstance(reasoning, str) else ""
    for tc in _listed(getattr(message, "tool_calls", None)):
        function = getattr(tc, "function", None)
        call_id = getattr(tc, "id", None)
        turn.tool_calls.append(ToolCall(id=client.unique_call_id(call_id if isinstance(call_id, str) else ""),
                                        name=_text(getattr(function, "name", None)),
                                        arguments=_arguments(getattr(function, "arguments", None))))
    usage = getattr(response, "usage", None)
    if usage is not None:
        _read_usage(turn, usage)
    return turn


def _read_usage(turn: AssistantTurn, usage: Any) -> None:
    turn.prompt_tokens = _count(getattr(usage, "prompt_tokens", 0))
    turn.completion_tokens = _count(getattr(usage, "completion_tokens", 0))
    turn.cached_tokens = cached_tokens(usage)
    turn.usage_reported = True


def _progress(client: ReplyReader) -> None:
    client._streamed_any = True
    client.clock.progress()


def _listed(value: Any) -> list[Any]:
    """A list the reply should hold (choices, tool calls): anything else counts as none."""
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    """Text the reply should hold: a string, or a list of text parts; anything else is no text."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(p.get("text", "") for p in value if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def _arguments(value: Any) -> str:
    """A call's arguments as the JSON text the API specifies; some servers send the object itself."""
    if value is None or isinstance(value, str):
        return value or ""
    return json.dumps(value, ensure_ascii=False, default=str)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _identity(turn: AssistantTurn, part: Any) -> None:
    """The completion's id and the answering model, from the first chunk (or response) that names them."""
    if not turn.response_id and isinstance(getattr(part, "id", None), str):
        turn.response_id = part.id[:200]
    if not turn.response_model and isinstance(getattr(part, "model", None), str):
        turn.response_model = part.model[:200]


def replay_deltas(turn: AssistantTurn, on_text: Callable[[str], None] | None,
            on_reasoning: Callable[[str], None] | None) -> None:
    """Show a non-streamed reply as one delta of each kind, so frontends still print it."""
    if turn.reasoning and on_reasoning:
        on_reasoning(turn.reasoning)
    if turn.content and on_text:
        on_text(turn.content)
