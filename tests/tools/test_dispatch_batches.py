"""Batches of tool calls through the real agent loop and LLM client (scripted server):
concurrency-safe batches run concurrently, others one by one, results in tool_call order,
each tool_call_id answered exactly once."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from axon_cli.agent.loop.agent import Agent
from axon_cli.agent.model.llm import LLMClient
from axon_cli.kernel.events import Event
from axon_cli.settings.config import Settings
from axon_cli.tools.dispatch import Dispatcher
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext, ToolError, ToolSpec
from tests.conftest import TEST_KEY
from tests.fakeserver import text_reply, tool_reply


class StepInput(BaseModel):
    label: str


class Probe:
    """Handlers that show how calls overlapped, without timing anything."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.lock = threading.Lock()
        self.barrier = threading.Barrier(2, timeout=30)
        self.second_started = threading.Event()

    def record(self, entry: str) -> None:
        with self.lock:
            self.log.append(entry)

    def meet(self, inp: StepInput, ctx: ToolContext) -> str:
        """Returns only if another call is running at the same time."""
        try:
            self.barrier.wait()
        except threading.BrokenBarrierError:
            raise ToolError("ran alone") from None
        if inp.label == "first":        # finish after the second one
            self.second_started.wait(30)
        else:
            self.second_started.set()
        self.record(f"done {inp.label}")
        return f"met {inp.label}"

    def step(self, inp: StepInput, ctx: ToolContext) -> str:
        self.record(f"start {inp.label}")
        if inp.label == "first":         # overlapping would let the second start meanwhile
            self.second_started.wait(0.5)
        else:
            self.second_started.set()
        self.record(f"end {inp.label}")
        return f"stepped {inp.label}"


@pytest.fixture
def make_agent(tmp_path: Path, server):  # type: ignore[no-untyped-def]
    probe = Probe()
    registry = ToolRegistry([
        ToolSpec(name="meet", description="meet", input_model=StepInput, handler=probe.meet,
                 is_read_only=lambda _i: True),
        ToolSpec(name="step", description="step", input_model=StepInput, handler=probe.step),
    ])
    settings = Settings(base_url=server.url, api_key=TEST_KEY, model="test-model", max_attempts=1)
    ctx = ToolContext(project_root=tmp_path, state_dir=tmp_path / ".axon", session_id="s",
                      settings=settings, registry=registry)
    events: list[Event] = []
    dispatcher = Dispatcher(registry, ctx, emit=events.append)
    agent = Agent(llm=LLMClient(settings), registry=registry, dispatcher=dispatcher, ctx=ctx,
                  system_prompt="sys", emit=events.append)
    yield agent, probe
    agent.close()


def tool_messages(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(m["tool_call_id"], m["content"]) for m in messages if m["role"] == "tool"]


def test_safe_batch_runs_concurrently_and_answers_in_order(server, make_agent):
    agent, probe = make_agent
    server.add(tool_reply(("meet", {"label": "first"}), ("meet", {"label": "second"})), text_reply("ok"))
    result = agent.run("go")
    assert result.stop_reason == "final"
    assert probe.log == ["done second", "done first"]          # they overlapped
    assert tool_messages(server.requests[1].messages) == [("call_1_0", "met first"), ("call_1_1", "met second")]


def test_unsafe_call_makes_the_batch_sequential(server, make_agent):
    agent, probe = make_agent
    server.add(tool_reply(("step", {"label": "first"}), ("step", {"label": "second"})), text_reply("ok"))
    agent.run("go")
    assert probe.log == ["start first", "end first", "start second", "end second"]
    assert tool_messages(server.requests[1].messages) == [
        ("call_1_0", "stepped first"), ("call_1_1", "stepped second")]


def test_mixed_failures_each_id_answered_once_in_order(server, make_agent):
    agent, _ = make_agent
    server.add(tool_reply(("nope", {}), ("step", '{"label": '), ("step", {"label": "second"}),
                          ("step", {"wrong": 1})), text_reply("ok"))
    agent.run("go")
    answers = tool_messages(server.requests[1].messages)
    assert [a[0] for a in answers] == ["call_1_0", "call_1_1", "call_1_2", "call_1_3"]
    assert answers[0][1].startswith("Error: unknown tool 'nope'. Available tools: meet, step.")
    assert answers[1][1].startswith("Error: the arguments of step are not valid JSON")
    assert answers[2][1] == "stepped second"
    assert answers[3][1].startswith("Error: 1 validation error in the arguments of step:")
    assert len(agent.messages) == 1 + 1 + 1 + 4 + 1   # system, user, assistant, 4 tool answers, final


def test_interrupt_answers_the_rest_as_interrupted(server, make_agent):
    agent, probe = make_agent

    def stop(inp: StepInput, ctx: ToolContext) -> str:
        ctx.cancel.set()
        return "stopping"

    agent.registry.register(ToolSpec(name="stop", description="stop", input_model=StepInput, handler=stop))
    server.add(tool_reply(("stop", {"label": "a"}), ("step", {"label": "second"})))
    result = agent.run("go")
    assert result.stop_reason == "interrupted"
    assert tool_messages(agent.messages) == [("call_1_0", "stopping"), ("call_1_1", "Error: interrupted by user")]
    assert probe.log == []
    assert len(server.requests) == 1
