"""The event consumer, in process: events in, spans and counters out (in-memory exporter and reader)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from axon_cli.app.telemetry.spans import SpanRecorder, tool_label, who_decided
from axon_cli.kernel.events import (
    Error,
    PermissionDecision,
    SessionStarted,
    ToolCallBegin,
    ToolCallEnd,
    TurnComplete,
    TurnStarted,
    Usage,
)

RULE = 'deny rule "bash(curl https://internal.example/secret-path)" in .axon/permissions.toml'


class Rig:
    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        self.metrics = InMemoryMetricReader()
        tracer_provider = TracerProvider()
        tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        meter = MeterProvider(metric_readers=[self.metrics]).get_meter("test")
        self.recorder = SpanRecorder(tracer_provider.get_tracer("test"), meter, "axon.run")

    def finished(self, name: str) -> list[Any]:
        return [s for s in self.spans.get_finished_spans() if s.name == name]

    def counter(self, name: str) -> list[tuple[dict[str, Any], float]]:
        data = self.metrics.get_metrics_data()
        return [(dict(p.attributes), p.value) for rm in data.resource_metrics for sm in rm.scope_metrics
                for m in sm.metrics if m.name == name for p in m.data.data_points]


@pytest.fixture
def rig() -> Iterator[Rig]:
    yield Rig()


def _session(rig: Rig) -> None:
    rig.recorder(SessionStarted(session_id="s1", model="m", cwd="/secret/cwd", mode="default"))


def test_counters_and_a_denied_call_that_names_who_decided_never_the_rule(rig):
    _session(rig)
    rig.recorder(TurnStarted(turn=1))
    rig.recorder(Usage(prompt_tokens=10, completion_tokens=2, cost_usd=0.5, model="m"))
    rig.recorder(ToolCallBegin(call_id="c1", name="bash", arguments={"command": "curl x"}, summary="curl x"))
    rig.recorder(PermissionDecision(call_id="c1", name="bash", decision="deny", final="deny", decided_by=RULE,
                                    reason="matches curl"))
    rig.recorder(ToolCallEnd(call_id="c1", name="bash", ok=False, output="Permission denied: " + RULE))
    rig.recorder(TurnStarted(turn=2))
    rig.recorder(Usage(prompt_tokens=20, completion_tokens=3, cost_usd=0.75, model="m"))
    rig.recorder(TurnComplete(result="r", num_turns=2, stop_reason="final"))
    rig.recorder(SessionStarted(session_id="s2", model="m", cwd="/", mode="default"))   # /new: totals restart
    rig.recorder(TurnStarted(turn=1))
    rig.recorder(Usage(prompt_tokens=7, completion_tokens=1, session_prompt_tokens=7, session_completion_tokens=1))
    rig.recorder(TurnStarted(turn=2))      # a compaction request in between: only the session totals know it
    rig.recorder(Usage(prompt_tokens=8, completion_tokens=2, session_prompt_tokens=115, session_completion_tokens=9))
    rig.recorder.close()
    (call,) = rig.finished("execute_tool bash")
    assert call.attributes["axon.tool.outcome"] == "denied"
    assert call.attributes["axon.tool.decided_by"] == "rule"
    every = json.dumps([dict(s.attributes or {}) for s in rig.spans.get_finished_spans()])
    assert "curl" not in every and "secret" not in every and "Permission denied" not in every
    assert rig.counter("axon.decisions") == [({"decision": "deny", "final": "deny", "decided_by": "rule"}, 1)]
    assert rig.counter("axon.cost") == [({"gen_ai.request.model": "m"}, 0.75)]    # deltas of the running total
    assert sorted((p["kind"], v) for p, v in rig.counter("axon.tokens")) == [("input", 145), ("output", 14)]


def test_a_failed_request_and_an_interrupted_call_still_end_their_spans(rig):
    _session(rig)
    rig.recorder(TurnStarted(turn=1))
    rig.recorder(Usage(prompt_tokens=1, completion_tokens=1))
    rig.recorder(ToolCallBegin(call_id="c1", name="read_file", arguments={}))
    rig.recorder(TurnStarted(turn=2))
    rig.recorder(Error(message="the endpoint said: <the user's prompt quoted>"))
    rig.recorder(TurnComplete(result="x", num_turns=2, stop_reason="error"))
    rig.recorder.close()
    requests = rig.finished("chat m")
    assert len(requests) == 2 and requests[1].status.status_code.name == "ERROR"
    assert requests[1].status.description is None and requests[1].attributes["error.type"] == "_OTHER"
    (turn,) = rig.finished("invoke_agent axon")
    assert turn.attributes["axon.turn.stop_reason"] == "error" and turn.status.status_code.name == "ERROR"
    assert turn.attributes["error.type"] == "_OTHER"
    assert len(rig.finished("execute_tool read_file")) == 1 and len(rig.finished("axon.run")) == 1
    assert not rig.recorder._calls and rig.recorder._root is None


def test_a_new_session_starts_a_new_root(rig):
    for sid in ("s1", "s2"):
        rig.recorder(SessionStarted(session_id=sid, model="m", cwd="/", mode="default"))
        rig.recorder(TurnComplete(result="blocked", num_turns=0, stop_reason="error"))
    rig.recorder.close()
    roots = rig.finished("axon.run")
    assert [r.attributes["axon.session.id"] for r in roots] == ["s1", "s2"]
    turns = rig.finished("invoke_agent axon")
    assert [t.parent.span_id for t in turns] == [r.context.span_id for r in roots]


@pytest.mark.parametrize(("decided_by", "who"), [
    ("mode default", "mode"), ("user", "user"), ("user (always: bash(git push *))", "user"),
    ('allow rule "edit_file(src/**)" in /home/u/.config/axon/permissions.toml', "rule"),
    ("PreToolUse hook python3 .axon/hooks/guard.py", "hook"), ("PreToolUse hook ./deny rule x", "hook"), ("error", "error"), ("pass-through", "none"),
    ("mode auto, sandbox and snapshot", "mode"), ("something new", "other"),
])
def test_who_decided_keeps_the_kind_only(decided_by, who):
    assert who_decided(decided_by) == who


@pytest.mark.parametrize(("name", "label"), [
    ("read_file", "read_file"), ("mcp__notes__search", "mcp__notes__search"),
    ("cat secret.txt", "(invalid)"), ("x" * 65, "(invalid)"), ("", "(invalid)"),
    ("ghp_" + "Z7xq3N8vLw2Rk5Tb9Yc4Md6Pf1Gh0Js2Ku8A", "(invalid)"),     # a token the model wrote as a name
])
def test_a_tool_name_the_model_made_up_is_not_carried_as_it_is(name, label):
    assert tool_label(name) == label


def test_error_type_is_the_status_a_timeout_or_other():
    from axon_cli.app.telemetry.genai import error_type

    assert error_type("HTTP 502: Bad Gateway (after 5 attempts)") == "502"
    assert error_type("the request timed out after 3 s") == "timeout"
    assert error_type("the endpoint said something odd") == "_OTHER"


@pytest.mark.parametrize(("endpoint", "address", "port", "provider"), [
    ("api.openai.com:443", "api.openai.com", 443, "openai"), ("127.0.0.1:8080", "127.0.0.1", 8080, "openai"),
    ("myres.openai.azure.com:443", "myres.openai.azure.com", 443, "azure.ai.openai"),
    ("api.deepseek.com:443", "api.deepseek.com", 443, "deepseek"), ("[::1]:11434", "::1", 11434, "openai"),
])
def test_server_and_provider_of_an_endpoint(endpoint, address, port, provider):
    from axon_cli.app.telemetry.genai import provider_of, server_of

    assert server_of(endpoint) == (address, port)
    assert provider_of(address) == provider


def test_content_is_recorded_only_when_opted_in_and_masked(rig):
    from axon_cli.kernel.events import AssistantMessage

    secret = "ghp_" + "Z7xq3N8vLw2Rk5Tb9Yc4Md6Pf1Gh0Js2Ku8A"
    for capture in (False, True):
        rig.recorder.capture = capture
        _session(rig)
        rig.recorder(TurnStarted(turn=1))
        rig.recorder(AssistantMessage(content=f"the token is {secret}", finish_reason="tool_calls",
                                      tool_calls=[{"id": "c1", "name": "bash", "arguments": '{"command": "ls"}'}]))
        rig.recorder(ToolCallBegin(call_id="c1", name="bash", arguments={"command": f"echo {secret}"}))
        rig.recorder(ToolCallEnd(call_id="c1", name="bash", ok=True, output="listing-canary"))
        rig.recorder(TurnComplete(result="r", num_turns=1, stop_reason="final"))
    rig.recorder.close()
    off, on = rig.finished("chat m")
    assert "gen_ai.output.messages" not in off.attributes
    assert off.attributes["gen_ai.response.finish_reasons"] == ("tool_calls",)
    messages = json.loads(on.attributes["gen_ai.output.messages"])
    assert messages[0]["role"] == "assistant" and messages[0]["finish_reason"] == "tool_calls"
    assert messages[0]["parts"][1] == {"type": "tool_call", "id": "c1", "name": "bash", "arguments": {"command": "ls"}}
    tool_off, tool_on = rig.finished("execute_tool bash")
    assert "gen_ai.tool.call.result" not in tool_off.attributes and "gen_ai.tool.call.arguments" not in tool_off.attributes
    assert tool_on.attributes["gen_ai.tool.call.result"] == "listing-canary"
    every = json.dumps([dict(s.attributes or {}) for s in rig.spans.get_finished_spans()])
    assert secret not in every and "listing-canary" in every
