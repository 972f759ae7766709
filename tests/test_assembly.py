"""The agent factory (``axon_cli/agent/assembly.py``): a sub-agent's client starts with what the session's
client learned about the endpoint, and the factory's agent answers through the dispatcher it got."""

from __future__ import annotations

from pathlib import Path

from axon_cli.agent.assembly import build_agent, model_client
from axon_cli.settings.config import Settings
from axon_cli.tools.dispatch import Dispatcher
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext


def test_a_sub_agents_client_starts_with_the_endpoints_quirks_and_keeps_its_own() -> None:
    session = model_client(Settings(), lambda _e: None)
    session.dropped_params.add("parallel_tool_calls")
    session.streaming, session.null_content = False, False
    session.extra_params["stop"] = ["</tool_call>"]
    sub = model_client(Settings(model="other"), lambda _e: None, endpoint=session)
    assert sub.dropped_params == {"parallel_tool_calls"} and sub.extra_params == {"stop": ["</tool_call>"]}
    assert (sub.streaming, sub.null_content, sub.settings.model) == (False, False, "other")
    sub.dropped_params.add("seed")
    sub.extra_params["temperature"] = 0
    assert session.dropped_params == {"parallel_tool_calls"} and "temperature" not in session.extra_params
    fresh = model_client(Settings(), lambda _e: None)
    assert (fresh.streaming, fresh.null_content, fresh.dropped_params) == (True, True, set())


def test_the_agent_uses_the_dispatchers_context_and_appends_the_protocols_prompt(tmp_path: Path) -> None:
    registry = ToolRegistry.with_builtins()
    ctx = ToolContext(project_root=tmp_path, state_dir=tmp_path / ".axon", session_id="s", settings=Settings())
    dispatcher = Dispatcher(registry, ctx)
    settings = Settings(tool_protocol="text")
    agent = build_agent(settings, registry, dispatcher, model_client(settings, lambda _e: None),
                        emit=lambda _e: None, prompt="BASE PROMPT\n")
    assert agent.ctx is ctx and agent.dispatcher is dispatcher
    system = agent.system_prompt()
    assert system.startswith("BASE PROMPT\n") and "read_file" in system[len("BASE PROMPT\n"):]
    moving = build_agent(settings, registry, dispatcher, model_client(settings, lambda _e: None),
                         emit=lambda _e: None, prompt=lambda: f"MODE {ctx.settings.mode}\n")
    ctx.settings.mode = "accept-edits"
    assert moving.system_prompt().startswith("MODE accept-edits\n")   # a function: the current prompt
