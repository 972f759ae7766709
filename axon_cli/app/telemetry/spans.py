"""The event consumer that turns axon's events into OpenTelemetry spans and metrics, in the GenAI
semantic conventions (``genai.py`` holds what the spec names).

Span tree: ``axon.run`` (``axon run``) or ``axon.session`` (``axon chat``, ACP) → ``invoke_agent axon``
(one user turn) → ``chat {model}`` (one request to the endpoint, CLIENT) and ``execute_tool {tool}``
(one call). Each carries the spec's required and recommended attributes (``gen_ai.operation.name``,
``gen_ai.provider.name``, ``gen_ai.request.model``, ``gen_ai.conversation.id``, ``server.address``/
``server.port``, ``gen_ai.response.model``/``.id``/``.finish_reasons``, ``gen_ai.usage.*``,
``gen_ai.tool.name``/``.call.id``/``.type``, ``error.type`` on a failure) and axon's own as ``axon.*``
extras. Metrics: the histograms ``gen_ai.client.token.usage`` and ``gen_ai.client.operation.duration``
(the spec's attributes and bucket boundaries), and the counters ``axon.tokens`` (by ``kind``: input,
output, cached), ``axon.cost`` (USD, when prices are configured) and ``axon.decisions``.

No content by default: attributes are counts, names, decisions and durations, never a message, an
argument, a path, a tool's output or anything a secret could hide in; ``decided_by`` is reduced to who
decided (rule, mode, user, hook). With ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`` the
model's replies (``gen_ai.output.messages``) and tool arguments and results (``gen_ai.tool.call.*``) are
recorded, masked. Imported only when telemetry is on (it needs the OpenTelemetry API).
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from axon_cli.app.telemetry import genai
from axon_cli.kernel.events import (
    AssistantMessage,
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
    from axon_cli.machinery.masking import mask

    return name if _TOOL_NAME.fullmatch(name) and mask(name) == name else "(invalid)"


class SpanRecorder:
    """An event sink (subscribe it to the runtime's bus); ``close`` ends whatever is still open."""

    def __init__(self, tracer: trace.Tracer, meter: Any, root_name: str, version: str = "",
                 capture: bool | None = None) -> None:
        self.tracer = tracer
        self.meter = meter
        self.root_name = root_name
        self.version = version
        self.capture = genai.capture_content() if capture is None else capture
        self.model = ""
        self.session_id = ""
        self.server: tuple[str, int | None] = genai.server_of("api.openai.com:443")
        self._lock = threading.Lock()
        self._root: Span | None = None
        self._turn: Span | None = None
        self._turn_tokens = [0, 0]
        self._turn_error = ""
        self._request: Span | None = None
        self._request_started = 0.0
        self._response_model = ""
        self._calls: dict[str, Span] = {}
        self._denied: set[str] = set()
        self._cost = 0.0
        self._seen = (0, 0)           # the session's prompt and completion tokens counted so far
        self._tokens = meter.create_counter("axon.tokens", unit="{token}", description="tokens by kind")
        self._spent = meter.create_counter("axon.cost", unit="USD", description="estimated cost")
        self._decisions = meter.create_counter("axon.decisions", unit="{decision}",
                                               description="permission decisions of tool calls")
        self._token_usage = meter.create_histogram(
            "gen_ai.client.token.usage", unit="{token}", description="Number of input and output tokens used.",
            explicit_bucket_boundaries_advisory=genai.TOKEN_BUCKETS)
        self._duration = meter.create_histogram(
            "gen_ai.client.operation.duration", unit="s", description="GenAI operation duration.",
            explicit_bucket_boundaries_advisory=genai.DURATION_BUCKETS)

    def __call__(self, event: Event) -> None:
        with self._lock:
            handler = _HANDLERS.get(type(event))
            if handler is not None:
                handler(self, event)

    # -- the attributes every GenAI span and metric shares ------------------------------------------
    @property
    def provider(self) -> str:
        return genai.provider_of(self.server[0])

    def _common(self, operation: str) -> dict[str, Any]:
        attributes: dict[str, Any] = {"gen_ai.operation.name": operation, "gen_ai.provider.name": self.provider}
        if self.model:
            attributes["gen_ai.request.model"] = self.model
        if self.session_id:
            attributes["gen_ai.conversation.id"] = self.session_id
        return attributes

    def _metric_attributes(self, error: str = "") -> dict[str, Any]:
        attributes: dict[str, Any] = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": self.provider,
                                      "gen_ai.request.model": self.model, "server.address": self.server[0]}
        if self.server[1] is not None:
            attributes["server.port"] = self.server[1]
        if self._response_model:
            attributes["gen_ai.response.model"] = self._response_model
        if error:
            attributes["error.type"] = error
        return attributes

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
            attributes = {**self._common("invoke_agent"), "gen_ai.agent.name": genai.AGENT_NAME}
            if self.version:
                attributes["gen_ai.agent.version"] = self.version
            self._turn = self._start(f"invoke_agent {genai.AGENT_NAME}", self._root_span(), attributes)
            self._turn_tokens, self._turn_error = [0, 0], ""
        return self._turn

    def _session(self, event: SessionStarted) -> None:
        self._end_all()
        self.model, self.session_id = event.model, event.session_id
        self.server = genai.server_of(event.endpoint or "api.openai.com:443")
        self._seen, self._cost = (0, 0), 0.0      # a new runtime: its client and meter start at zero
        self._root = self._start(self.root_name, None, {"axon.session.id": event.session_id, "axon.mode": event.mode,
                                                        "gen_ai.conversation.id": event.session_id,
                                                        "gen_ai.request.model": event.model})

    def _turn_started(self, event: TurnStarted) -> None:
        self._end(self._request)
        attributes = {**self._common("chat"), "server.address": self.server[0], "axon.request.index": event.turn}
        if self.server[1] is not None:
            attributes["server.port"] = self.server[1]
        self._request = self._start(f"chat {self.model}".strip(), self._turn_span(), attributes, SpanKind.CLIENT)
        self._request_started = time.monotonic()
        self._response_model = ""

    def _usage(self, event: Usage) -> None:
        model = event.model or self.model
        request = self._request
        self._response_model = event.response_model
        if request is not None:
            request.set_attribute("gen_ai.request.model", model)
            if event.prompt_tokens is not None and event.completion_tokens is not None:   # reported
                request.set_attribute("gen_ai.usage.input_tokens", event.prompt_tokens)
                request.set_attribute("gen_ai.usage.output_tokens", event.completion_tokens)
            request.set_attribute("axon.latency_ms", event.latency_ms)
            if event.response_model:
                request.set_attribute("gen_ai.response.model", event.response_model)
            if event.response_id:
                request.set_attribute("gen_ai.response.id", event.response_id)
            if event.cached_tokens is not None:
                request.set_attribute("gen_ai.usage.cache_read.input_tokens", event.cached_tokens)
                request.set_attribute("axon.usage.cached_tokens", event.cached_tokens)
        self._turn_tokens[0] += event.prompt_tokens or 0
        self._turn_tokens[1] += event.completion_tokens or 0
        metric = self._metric_attributes()
        for kind, count in (("input", event.prompt_tokens), ("output", event.completion_tokens)):
            if count is not None:        # not reported: no data point (never a made-up 0)
                self._token_usage.record(count, {**metric, "gen_ai.token.type": kind})
        self._duration.record(event.latency_ms / 1000, metric)
        self._request_started = 0.0               # its duration is recorded
        for kind, count in (*self._session_tokens(event), ("cached", event.cached_tokens or 0)):
            if count:
                self._tokens.add(count, {"kind": kind, "gen_ai.request.model": model})
        if event.cost_usd is not None and event.cost_usd > self._cost:
            self._spent.add(event.cost_usd - self._cost, {"gen_ai.request.model": model})
            self._cost = event.cost_usd

    def _reply(self, event: AssistantMessage) -> None:
        request = self._request
        if request is None:
            return
        request.set_attribute("gen_ai.response.finish_reasons", [event.finish_reason or "stop"])
        if self.capture:
            request.set_attribute("gen_ai.output.messages",
                                  genai.output_messages(event.content, event.tool_calls, event.finish_reason))
        self._end(request)
        self._request = None

    def _session_tokens(self, event: Usage) -> tuple[tuple[str, int], tuple[str, int]]:
        """Input and output tokens since the last usage: the session's totals moved on by this request
        and by any request without its own event (compacting the history), else this request's."""
        if not (event.session_prompt_tokens or event.session_completion_tokens):
            return ("input", event.prompt_tokens or 0), ("output", event.completion_tokens or 0)
        seen, self._seen = self._seen, (event.session_prompt_tokens, event.session_completion_tokens)
        return ("input", max(0, self._seen[0] - seen[0])), ("output", max(0, self._seen[1] - seen[1]))

    def _call_begin(self, event: ToolCallBegin) -> None:
        self._calls[event.call_id] = self._tool_span(event.name, event.call_id, event.source)
        if self.capture:
            from axon_cli.machinery.masking.written import masked_text

            arguments = event.arguments if isinstance(event.arguments, str) else genai.as_json(event.arguments)
            self._calls[event.call_id].set_attribute("gen_ai.tool.call.arguments", masked_text(arguments))

    def _tool_span(self, name: str, call_id: str, source: str = "native") -> Span:
        label = tool_label(name)
        return self._start(f"execute_tool {label}", self._turn_span(),
                           {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": label,
                            "gen_ai.tool.call.id": call_id[:200],
                            "gen_ai.tool.type": "extension" if label.startswith("mcp__") else "function",
                            "axon.tool.name": label, "axon.tool.source": source})

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
        span = self._calls.pop(event.call_id, None) or self._tool_span(event.name, event.call_id)
        denied = event.call_id in self._denied
        self._denied.discard(event.call_id)
        outcome = "denied" if denied else "ok" if event.ok else "error"
        span.set_attribute("axon.tool.outcome", outcome)
        span.set_attribute("axon.tool.duration_ms", event.duration_ms)
        span.set_attribute("axon.tool.output_bytes", len(event.output.encode("utf-8", "replace")))
        span.set_attribute("axon.tool.truncated", event.truncated)
        if outcome != "ok":
            span.set_attribute("error.type", "denied" if denied else "tool_error")
            span.set_status(Status(StatusCode.ERROR))
        elif self.capture:
            from axon_cli.machinery.masking.written import masked_text

            span.set_attribute("gen_ai.tool.call.result", masked_text(event.output))
        self._end(span)

    def _error(self, event: Error) -> None:
        kind = genai.error_type(event.message)
        self._turn_error = kind
        request = self._request
        if request is not None:
            request.set_attribute("error.type", kind)
            request.set_status(Status(StatusCode.ERROR))   # no description: the message may quote content
            if self._request_started:
                self._duration.record(time.monotonic() - self._request_started, self._metric_attributes(kind))
        if self._turn is not None:
            self._turn.set_status(Status(StatusCode.ERROR))
        self._end(request)
        self._request = None

    def _turn_complete(self, event: TurnComplete) -> None:
        turn = self._turn_span()
        self._end(self._request)
        self._request = None
        for span in self._calls.values():
            self._end(span)
        self._calls.clear()
        turn.set_attribute("gen_ai.usage.input_tokens", self._turn_tokens[0])
        turn.set_attribute("gen_ai.usage.output_tokens", self._turn_tokens[1])
        turn.set_attribute("axon.turn.stop_reason", event.stop_reason)
        turn.set_attribute("axon.turn.requests", event.num_turns)
        if event.stop_reason == "error":
            turn.set_attribute("error.type", self._turn_error or "_OTHER")
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
    AssistantMessage: SpanRecorder._reply,
    ToolCallBegin: SpanRecorder._call_begin, PermissionDecision: SpanRecorder._decision,
    ToolCallEnd: SpanRecorder._call_end, Error: SpanRecorder._error, TurnComplete: SpanRecorder._turn_complete,
}
