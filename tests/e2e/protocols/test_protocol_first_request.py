"""The first request stays lean: system prompt + tool schemas under 2,000 tokens (chars/4) by
default, and the compact profile is smaller still. Measures whatever tools exist, through the real
``axon run`` (bench/bench_first_request.py prints the full table). With the text protocol the
whole first request stays under 1,500 tokens in every model family's format."""

from __future__ import annotations

import json

import pytest

from tests.fakeserver import text_reply

BUDGET = 2000


def first_request_tokens(server, run_axon, project, profile: str, protocol: str) -> int:
    (project / ".axon").mkdir(exist_ok=True)
    (project / ".axon" / "config.toml").write_text(f'prompt_profile = "{profile}"\n')
    server.add(text_reply("ok"))
    before = len(server.requests)
    r = run_axon("run", "hi", "--tool-protocol", protocol)
    assert r.code == 0, r.stderr
    body = server.requests[before].body
    system = "".join(m["content"] for m in body["messages"] if m["role"] == "system")
    tools = json.dumps(body["tools"]) if body.get("tools") else ""
    return (len(system) + len(tools)) // 4


@pytest.mark.parametrize("protocol", ["native", "text"])
def test_default_first_request_is_under_budget_and_compact_is_smaller(server, run_axon, project, protocol):
    default = first_request_tokens(server, run_axon, project, "default", protocol)
    compact = first_request_tokens(server, run_axon, project, "compact", protocol)
    assert default < BUDGET, f"default first request is {default} tokens (budget {BUDGET})"
    assert compact < default * 0.8, (compact, default)


TEXT_BUDGET = 1500


@pytest.mark.parametrize("model, marker", [
    ("qwen2.5-coder-1.5b", "within <tool_call></tool_call> XML tags"),
    ("llama-3.2-3b-instruct", "dictionary of argument name"),
    ("mistral-7b-instruct", "[AVAILABLE_TOOLS]"),
    ("deepseek-coder-6.7b", "## Tools"),
    ("test-model", "described as JSON schemas"),
])
def test_text_first_request_in_each_family_format_is_under_1500_tokens(server, run_axon, project, model, marker):
    server.add(text_reply("ok"))
    r = run_axon("run", "hi", "--tool-protocol", "text", "--model", model)
    assert r.code == 0, r.stderr
    body = server.requests[-1].body
    system = "".join(m["content"] for m in body["messages"] if m["role"] == "system")
    assert marker in system and "<tools>" in system and "tools" not in body
    whole = len(json.dumps(body["messages"])) // 4   # the system prompt, the task and the JSON around them
    assert whole <= TEXT_BUDGET, f"{model}: {whole} tokens"


def test_tool_formats_in_config_overrides_the_family(server, run_axon, project):
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text('tool_protocol = "text"\n[tool_formats]\n"test-model" = "llama"\n')
    server.add(text_reply("ok"))
    r = run_axon("run", "hi")
    assert r.code == 0, r.stderr
    assert "dictionary of argument name" in server.requests[-1].messages[0]["content"]
