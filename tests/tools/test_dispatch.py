"""The dispatch pipeline for one call: parse, look up, validate, permission, handler, events, audit."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from axon_cli.kernel.events import AutoApprover, Event, PermissionDecision, ToolCallBegin, ToolCallEnd
from axon_cli.policy.base import Decision
from axon_cli.settings.config import Settings
from axon_cli.tools.dispatch import Dispatcher, ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext, ToolError, ToolOutput, ToolSpec


class EchoInput(BaseModel):
    text: str
    times: int = 1
    mode: Literal["plain", "upper"] = "plain"


def echo(inp: EchoInput, ctx: ToolContext) -> str:
    out = (inp.text.upper() if inp.mode == "upper" else inp.text) * inp.times
    return out


def boom(inp: EchoInput, ctx: ToolContext) -> ToolOutput:
    raise ValueError(f"exploded on {inp.text}")


def refuse(inp: EchoInput, ctx: ToolContext) -> ToolOutput:
    raise ToolError("the file is not there")


RELEASE = threading.Event()


def hang(inp: EchoInput, ctx: ToolContext) -> str:
    RELEASE.wait(30)
    return "finally"


def spec(name: str, handler: Any, **kw: Any) -> ToolSpec[Any]:
    return ToolSpec(name=name, description=f"{name} tool", input_model=EchoInput, handler=handler,
                    is_read_only=lambda _i: True, **kw)


class RulePolicy:
    """A tiny real policy: a fixed decision per tool name, allow otherwise."""

    def __init__(self, decisions: dict[str, Decision]) -> None:
        self.decisions = decisions

    def check(self, spec: ToolSpec[Any], tool_input: BaseModel, ctx: ToolContext, facts: Any = None) -> Decision:
        if spec.name == "broken_policy":
            raise RuntimeError("policy bug")
        return self.decisions.get(spec.name, Decision("allow", "fine", "test"))

    def remember(self, rule: str, scope: Literal["session", "project"]) -> str:
        return ""


@pytest.fixture
def setup(tmp_path: Path):  # type: ignore[no-untyped-def]
    registry = ToolRegistry([
        spec("echo", echo), spec("boom", boom), spec("refuse", refuse), spec("hang", hang, timeout=0.2),
        spec("hidden", echo, deferred=True), spec("denied", echo), spec("asked", echo),
        spec("broken_policy", echo),
    ])
    ctx = ToolContext(project_root=tmp_path, state_dir=tmp_path / ".axon", session_id="s1",
                      settings=Settings(), registry=registry)
    events: list[Event] = []
    policy = RulePolicy({
        "denied": Decision("deny", "no echoing here", 'deny rule "denied"'),
        "asked": Decision("ask", "needs a yes", "mode default", suggested_rule="asked(hi)"),
    })
    dispatcher = Dispatcher(registry, ctx, policy=policy, emit=events.append)
    return dispatcher, events, ctx


def call(name: str, args: Any, call_id: str = "c1") -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=args if isinstance(args, str) else json.dumps(args))


def test_success_returns_output_and_pairs_events(setup):
    dispatcher, events, ctx = setup
    r = dispatcher.dispatch(call("echo", {"text": "ab", "times": 2}))
    assert (r.ok, r.content, r.call_id, r.name) == (True, "abab", "c1", "echo")
    kinds = [type(e) for e in events]
    assert kinds == [ToolCallBegin, PermissionDecision, ToolCallEnd]
    begin, end = events[0], events[-1]
    assert isinstance(begin, ToolCallBegin) and begin.arguments == {"text": "ab", "times": 2}
    assert isinstance(end, ToolCallEnd) and end.call_id == "c1" and end.ok and end.output == "abab"
    audit = [json.loads(x) for x in (ctx.state_dir / "audit.jsonl").read_text().splitlines()]
    assert len(audit) == 1
    assert audit[0]["tool"] == "echo" and audit[0]["decision"] == "allow" and audit[0]["error"] is None


def test_unknown_tool_lists_available_tools(setup):
    dispatcher, events, _ = setup
    r = dispatcher.dispatch(call("nope", {"text": "x"}))
    assert not r.ok
    assert r.content.startswith("Error: unknown tool 'nope'. Available tools: ")
    listed = r.content.split("Available tools: ", 1)[1].rstrip(".").split(", ")
    assert listed == ["echo", "boom", "refuse", "hang", "denied", "asked", "broken_policy"]
    assert "hidden" not in listed
    assert [type(e) for e in events] == [ToolCallBegin, ToolCallEnd]


def test_deferred_tool_not_active_says_how_to_activate(setup):
    dispatcher, _, ctx = setup
    r = dispatcher.dispatch(call("hidden", {"text": "x"}))
    assert not r.ok and "deferred and not active" in r.content and "tool_search" in r.content
    ctx.registry.activate(["hidden"])
    assert dispatcher.dispatch(call("hidden", {"text": "x"}, "c2")).content == "x"


@pytest.mark.parametrize("raw, expected", [
    ('{"text": "a",', "Error: the arguments of echo are not valid JSON"),
    ("not json at all", "Error: the arguments of echo are not valid JSON"),
    ('["text"]', "Error: the arguments of echo must be a JSON object, not list"),
    ('"text"', "Error: the arguments of echo must be a JSON object, not str"),
])
def test_bad_json_arguments(setup, raw, expected):
    dispatcher, events, _ = setup
    r = dispatcher.dispatch(call("echo", raw))
    assert not r.ok and r.content.startswith(expected)
    assert isinstance(events[-1], ToolCallEnd) and not events[-1].ok


def test_empty_arguments_mean_no_arguments(setup):
    dispatcher, _, _ = setup
    r = dispatcher.dispatch(call("echo", ""))
    assert r.content.splitlines()[:2] == ["Error: 1 validation error in the arguments of echo:",
                                          "  - text: Field required (expected string)"]


def test_validation_lists_each_bad_field_with_expected_type(setup):
    dispatcher, _, _ = setup
    r = dispatcher.dispatch(call("echo", {"times": "many", "mode": "loud", "txt": "x"}))
    assert not r.ok
    lines = r.content.splitlines()
    assert lines[0] == "Error: 3 validation errors in the arguments of echo:"
    assert lines[1] == "  - text: Field required (expected string)"
    assert lines[2].startswith("  - times: Input should be a valid integer") and "(got string 'many')" in lines[2]
    assert lines[3] == "  - mode: Input should be 'plain' or 'upper' (got string 'loud')"
    assert lines[4] == "  - unexpected argument 'txt'; the parameters are: text, times, mode"
    assert lines[5] == "Fix the arguments and try again."


def test_handler_exception_becomes_error_result(setup):
    dispatcher, events, ctx = setup
    r = dispatcher.dispatch(call("boom", {"text": "x"}))
    assert (r.ok, r.content) == (False, "Error: ValueError: exploded on x")
    assert isinstance(events[-1], ToolCallEnd) and events[-1].ok is False
    audit = json.loads((ctx.state_dir / "audit.jsonl").read_text().splitlines()[-1])
    assert audit["error"] == "Error: ValueError: exploded on x"


def test_tool_error_is_the_message(setup):
    dispatcher, _, _ = setup
    r = dispatcher.dispatch(call("refuse", {"text": "x"}))
    assert (r.ok, r.content) == (False, "Error: the file is not there")


def test_timeout_answers_without_waiting_for_the_handler(setup):
    dispatcher, _, _ = setup
    try:
        r = dispatcher.dispatch(call("hang", {"text": "x"}))
        assert (r.ok, r.content) == (False, "Error: hang timed out after 0.2 s")
    finally:
        RELEASE.set()


def test_cancelled_before_execution_is_interrupted(setup):
    dispatcher, _, ctx = setup
    ctx.cancel.set()
    r = dispatcher.dispatch(call("echo", {"text": "x"}))
    assert (r.ok, r.content) == (False, "Error: interrupted by user")


def test_permission_deny_names_what_decided(setup):
    dispatcher, events, _ = setup
    r = dispatcher.dispatch(call("denied", {"text": "x"}))
    assert r.content == 'Permission denied: no echoing here (deny rule "denied")'
    decision = next(e for e in events if isinstance(e, PermissionDecision))
    assert (decision.decision, decision.final) == ("deny", "deny")


def test_ask_is_denied_by_default_approver_and_allowed_by_auto(setup):
    dispatcher, _, _ = setup
    r = dispatcher.dispatch(call("asked", {"text": "x"}))
    assert not r.ok and r.content.startswith("Permission denied: the user did not approve this call")
    assert 'add the allow rule "asked(hi)"' in r.content
    dispatcher.approver = AutoApprover()
    r2 = dispatcher.dispatch(call("asked", {"text": "x"}, "c2"))
    assert (r2.ok, r2.content, r2.decided_by) == (True, "x", "user")


def test_policy_exception_denies(setup):
    dispatcher, _, _ = setup
    r = dispatcher.dispatch(call("broken_policy", {"text": "x"}))
    assert not r.ok and "permission check failed: policy bug" in r.content


def test_each_call_id_is_answered_once(setup):
    dispatcher, events, _ = setup
    first = dispatcher.dispatch(call("echo", {"text": "x"}, "same"))
    late = dispatcher.reject(call("echo", {"text": "x"}, "same"), "Error: interrupted by user")
    assert first.ok and late.content == "Error: interrupted by user"
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [e.call_id for e in ends] == ["same"]


def test_an_approved_call_carries_outside_sandbox_to_the_handler_and_the_audit(tmp_path: Path) -> None:
    seen: list[Decision | None] = []

    def record(inp: EchoInput, ctx: ToolContext) -> str:
        assert ctx.call.call_id == "c2"
        seen.append(ctx.call.decision)
        return "ran"

    registry = ToolRegistry([spec("leave", record)])
    ctx = ToolContext(project_root=tmp_path, state_dir=tmp_path / ".axon", session_id="s1", settings=Settings(),
                      registry=registry)
    events: list[Event] = []
    policy = RulePolicy({"leave": Decision("ask", "runs outside the sandbox: git commit writes .git", "mode default",
                                           outside_sandbox="git commit writes .git")})
    dispatcher = Dispatcher(registry, ctx, policy=policy, emit=events.append)
    denied = dispatcher.dispatch(call("leave", {"text": "x"}))
    assert denied.content.startswith("Permission denied: the user did not approve this call (it would run outside "
                                     "the sandbox: git commit writes .git): axon run is non-interactive")
    dispatcher.approver = AutoApprover()
    assert dispatcher.dispatch(call("leave", {"text": "x"}, "c2")).ok
    assert len(seen) == 1 and seen[0] is not None and seen[0].outside_sandbox == "git commit writes .git"
    assert ctx.call.decision is None                                # the session's context is not the call's
    decisions = [e for e in events if isinstance(e, PermissionDecision)]
    assert [(d.final, d.outside_sandbox, d.outside_reason) for d in decisions] == [
        ("deny", True, "git commit writes .git"), ("allow", True, "git commit writes .git")]
    audit = [json.loads(x) for x in (ctx.state_dir / "audit.jsonl").read_text().splitlines()]
    assert "outside_sandbox" not in audit[0] and audit[1]["outside_sandbox"] == "git commit writes .git"
