"""Tools activated mid-session: a local endpoint keeps the tools it was sent first (the head of its
prompt, so its prefix cache) and gets the new ones described after the result; a hosted endpoint
gets them in the request's ``tools``."""

from __future__ import annotations

import json

from axon_cli.agent.model.llm import AssistantTurn
from axon_cli.agent.protocols.builtin import AutoProtocol, make_protocol
from axon_cli.settings.config import Settings
from axon_cli.tools.dispatch import CallResult, ToolCall
from axon_cli.tools.registry import ToolRegistry


def names(tools: list[dict[str, object]] | None) -> list[str]:
    return [t["function"]["name"] for t in tools or []]  # type: ignore[index]


def search_turn() -> tuple[AssistantTurn, list[CallResult]]:
    turn = AssistantTurn(content="", tool_calls=[ToolCall(id="c1", name="tool_search", arguments='{"query": "memory"}')])
    return turn, [CallResult(call_id="c1", name="tool_search", content="Activated 1 tool", ok=True)]


def test_a_local_endpoint_keeps_its_first_tools_and_hears_of_the_new_one_after_the_result():
    registry = ToolRegistry.with_builtins()
    protocol = make_protocol(Settings(base_url="http://127.0.0.1:8080/v1"), registry)
    assert isinstance(protocol, AutoProtocol) and protocol.stable_head
    first = protocol.tools_param(registry)
    turn = protocol.extract_calls(search_turn()[0], registry)
    registry.activate(["memory_save"])
    messages = protocol.result_messages(turn, search_turn()[1])
    assert protocol.tools_param(registry) == first and "memory_save" not in names(first)
    assert messages[0] == {"role": "tool", "tool_call_id": "c1", "content": "Activated 1 tool"}
    assert '"memory_save"' in messages[-1]["content"] and '"content"' in messages[-1]["content"]
    later = protocol.result_messages(turn, search_turn()[1])       # described once
    assert "memory_save" not in json.dumps(later)


def test_a_hosted_endpoint_gets_the_activated_tool_in_tools():
    registry = ToolRegistry.with_builtins()
    protocol = make_protocol(Settings(base_url="https://api.openai.com/v1"), registry)
    assert isinstance(protocol, AutoProtocol) and not protocol.stable_head
    protocol.tools_param(registry)
    turn = protocol.extract_calls(search_turn()[0], registry)
    registry.activate(["memory_save"])
    assert "memory_save" in names(protocol.tools_param(registry))
    assert protocol.result_messages(turn, search_turn()[1]) == [
        {"role": "tool", "tool_call_id": "c1", "content": "Activated 1 tool"}]
