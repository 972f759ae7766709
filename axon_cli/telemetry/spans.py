"""The event consumer that turns axon's events into OpenTelemetry spans and counters.

Span tree: ``axon.run`` (``axon run``) or ``axon.session`` (``axon chat``) → ``axon.turn`` (one user
turn) → ``axon.model_request`` (one request to the endpoint) and ``axon.tool_call`` (one call).
Attributes are counts, names, decisions and durations only: never a message, an argument, a path, a
tool's output or anything a secret could hide in. ``decided_by`` is reduced to who decided (rule,
mode, user, hook), because the rule text itself names paths and commands.

Counters: ``axon.tokens`` (by ``kind``: input, output, cached), ``axon.cost`` (USD, when prices are
configured) and ``axon.decisions`` (by ``decision`` and ``final``). Imported only when telemetry is
on (it needs the OpenTelemetry API).
"""

from __future__ import annotations

import re
import threading
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from axon_cli.events import (
    Error,
    Event,
    PermissionDecision,
    SessionStarted,
    ToolCallBegin,
    ToolCallEnd,
    TurnComplete,
    TurnStarted,
    Usage,
)

__all__ = ["SpanRecorder", "who_decided", "tool_label"]

_TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def who_decided(decided_by: str) -> str:
    """``decided_by`` without the rule text, command or file: rule, mode, user, hook, error or other."""
    text = decided_by.strip().lower()
    for prefix in ("mode", "user", "error"):
        if text.startswith(prefix):
            return prefix
    if text.startswith(("allow rule ", "ask rule ", "deny rule ")):
        return "rule"
    if "hook" in text:
        return "hook"
    return "none" if text in ("pass-through", "n/a", "") else "other"


def tool_label(name: str) -> str:
    """A tool's name as a span may carry it: the model writes the name of the tool it calls, so one
    that is not a plain tool name, or that the secret masker would mask, becomes "(invalid)"."""
    from axon_cli.masking import mask

    return name if _TOOL_NAME.fullmatch(name) and mask(name) == name else "(invalid)"


class SpanRecorder:
    """An event sink (subscribe it to the runtime's bus); ``close`` ends whatever is still open."""

    def __init__(self, tracer: trace.Tracer, meter: Any, root_name: str) -> None:
        self.tracer = tracer
        self.meter = meter
        self.root_name = root_name
        self.model = ""
        self._lock = threading.Lock()
        self._root: Span | None = None
        self._turn: Span | None = None
        self._request: Span | None = None
        self._calls: dict[str, Span] = {}
        self._denied: set[str] = set()
        self._cost = 0.0
        self._seen = (0, 0)           # the session's prompt and completion tokens counted so far
        self._tokens = meter.create_counter("axon.tokens", unit="{token}", description="tokens by kind")
        self._spent = meter.create_counter("axon.cost", unit="USD", description="estimated cost")
        self._decisions = meter.create_counter("axon.decisions", unit="{decision}",
                                               description="permission decisions of tool calls")

    def __call__(self, event: Event) -> None:
        with self._lock:
            handler = _HANDLERS.get(type(event))
            if handler is not None:
                handler(self, event)

    # -- spans -------------------------------------------------------------------------------------
    def _start(self, name: str, parent: Span | None, attributes: dict[str, Any] | None = None,
               kind: SpanKind = SpanKind.INTERNAL) -> Span:
        context = trace.set_span_in_context(parent) if parent is not None else None
        return self.tracer.start_span(name, context=context, attributes=attributes, kind=kind)

    def _root_span(self) -> Span:
        if self._root is None:
            self._root = self._start(self.root_name, None)
        return self._root

    def _turn_span(self) -> Span:
        if self._turn is None:
            self._turn = self._start("axon.turn", self._root_span())
        return self._turn

    def _session(self, event: SessionStarted) -> None:
        self._end_all()
        self.model = event.model
        self._seen, self._cost = (0, 0), 0.0      # a new runtime: its client and meter start at zero
        self._root = self._start(self.root_name, None, {"axon.session.id": event.session_id, "axon.mode": event.mode,
                                                        "gen_ai.request.model": event.model})

    def _turn_started(self, event: TurnStarted) -> None:
        self._end(self._request)
        self._request = self._start("axon.model_request", self._turn_span(),
                                    {"gen_ai.operation.name": "chat", "gen_ai.request.model": self.model,
                                     "axon.request.index": event.turn}, SpanKind.CLIENT)

    def _usage(self, event: Usage) -> None:
        model = event.model or self.model
        request = self._request
        if request is not None:
            request.set_attribute("gen_ai.request.model", model)
            if event.prompt_tokens is not None and event.completion_tokens is not None:   # reported
                request.set_attribute("gen_ai.usage.input_tokens", event.prompt_tokens)
                request.set_attribute("gen_ai.usage.output_tokens", event.completion_tokens)
            request.set_attribute("axon.latency_ms", event.latency_ms)
            if event.cached_tokens is not None:
                request.set_attribute("axon.usage.cached_tokens", event.cached_tokens)
            self._end(request)
            self._request = None
        for kind, count in (*self._session_tokens(event), ("cached", event.cached_tokens or 0)):
            if count:
                self._tokens.add(count, {"kind": kind, "gen_ai.request.model": model})
        if event.cost_usd is not None and event.cost_usd > self._cost:
            self._spent.add(event.cost_usd - self._cost, {"gen_ai.request.model": model})
            self._cost = event.cost_usd

    def _session_tokens(self, event: Usage) -> tuple[tuple[str, int], tuple[str, int]]:
        """Input and output tokens since the last usage: the session's totals moved on by this request
        and by any request without its own event (compacting the history), else this request's."""
        if not (event.session_prompt_tokens or event.session_completion_tokens):
            return ("input", event.prompt_tokens or 0), ("output", event.completion_tokens or 0)
        seen, self._seen = self._seen, (event.session_prompt_tokens, event.session_completion_tokens)
        return ("input", max(0, self._seen[0] - seen[0])), ("output", max(0, self._seen[1] - seen[1]))

    def _call_begin(self, event: ToolCallBegin) -> None:
        self._calls[event.call_id] = self._start("axon.tool_call", self._turn_span(),
                                                 {"axon.tool.name": tool_label(event.name), "axon.tool.source": event.source})

    def _decision(self, event: PermissionDecision) -> None:
        who = who_decided(event.decided_by)
        span = self._calls.get(event.call_id)
        if span is not None:
            span.set_attribute("axon.tool.decision", event.decision)
            span.set_attribute("axon.tool.final_decision", event.final)
            span.set_attribute("axon.tool.decided_by", who)
        if event.final == "deny":
            self._denied.add(event.call_id)
        self._decisions.add(1, {"decision": event.decision, "final": event.final, "decided_by": who})

    def _call_end(self, event: ToolCallEnd) -> None:
        span = self._calls.pop(event.call_id, None) or self._start("axon.tool_call", self._turn_span(),
                                                                    {"axon.tool.name": tool_label(event.name)})
        denied = event.call_id in self._denied
        self._denied.discard(event.call_id)
        outcome = "denied" if denied else "ok" if event.ok else "error"
        span.set_attribute("axon.tool.outcome", outcome)
        span.set_attribute("axon.tool.duration_ms", event.duration_ms)
        span.set_attribute("axon.tool.output_bytes", len(event.output.encode("utf-8", "replace")))
        span.set_attribute("axon.tool.truncated", event.truncated)
        if outcome == "error":
            span.set_status(Status(StatusCode.ERROR))
        self._end(span)

    def _error(self, event: Error) -> None:
        for span in (self._request, self._turn):
            if span is not None:
                span.set_status(Status(StatusCode.ERROR))     # no description: the message may quote content
        self._end(self._request)
        self._request = None

    def _turn_complete(self, event: TurnComplete) -> None:
        turn = self._turn_span()
        self._end(self._request)
        self._request = None
        for span in self._calls.values():
            self._end(span)
        self._calls.clear()
        turn.set_attribute("axon.turn.stop_reason", event.stop_reason)
        turn.set_attribute("axon.turn.requests", event.num_turns)
        if event.stop_reason == "error":
            turn.set_status(Status(StatusCode.ERROR))
        self._end(turn)
        self._turn = None

    # -- closing -----------------------------------------------------------------------------------
    @staticmethod
    def _end(span: Span | None) -> None:
        if span is not None and span.is_recording():
            span.end()

    def _end_all(self) -> None:
        for span in (self._request, *self._calls.values(), self._turn, self._root):
            self._end(span)
        self._request = self._turn = self._root = None
        self._calls.clear()
        self._denied.clear()

    def close(self) -> None:
        with self._lock:
            self._end_all()


_HANDLERS: dict[type, Any] = {
    SessionStarted: SpanRecorder._session, TurnStarted: SpanRecorder._turn_started, Usage: SpanRecorder._usage,
    ToolCallBegin: SpanRecorder._call_begin, PermissionDecision: SpanRecorder._decision,
    ToolCallEnd: SpanRecorder._call_end, Error: SpanRecorder._error, TurnComplete: SpanRecorder._turn_complete,
}
