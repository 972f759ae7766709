"""The first request stays lean: system prompt + tool schemas under 2,000 tokens (chars/4) by
default, and the compact profile is smaller still. Measures whatever tools exist, through the real
``axon run`` (bench/bench_first_request.py prints the full table)."""

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
