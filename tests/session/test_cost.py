"""Usage and cost: the price table, model switches, unknown models, the Usage event and /cost."""

from __future__ import annotations

import pytest

from axon_cli.agent.model.llm import SessionUsage
from axon_cli.kernel.events import AutoApprover, Event, Usage
from axon_cli.session.conversation.cost import CostMeter, price_for
from axon_cli.session.runtime.opening import open_session
from axon_cli.settings.config import Price, Settings, load_settings
from tests.conftest import TEST_KEY
from tests.fakeserver import text_reply

PRICES = {"gpt-4o": Price(input=2.5, output=10.0), "gpt-4o-mini": Price(input=0.15, output=0.6)}


def test_price_lookup_exact_then_longest_prefix():
    s = Settings(prices=PRICES)
    assert price_for(s, "gpt-4o") == PRICES["gpt-4o"]
    assert price_for(s, "GPT-4o-mini-2024-07-18") == PRICES["gpt-4o-mini"]
    assert price_for(s, "llama3") is None


def _usage(prompt: int, completion: int) -> SessionUsage:
    return SessionUsage(prompt_tokens=prompt, completion_tokens=completion, requests=1)


def test_each_request_is_priced_with_the_model_in_use():
    s = Settings(model="gpt-4o", prices=PRICES)
    meter = CostMeter(s)
    assert meter.update(_usage(1_000_000, 100_000)) == pytest.approx(2.5 + 1.0)
    s.model = "gpt-4o-mini"
    assert meter.update(_usage(2_000_000, 100_000)) == pytest.approx(3.5 + 0.15)
    s.model = "local-llama"
    assert meter.update(_usage(2_000_010, 100_000)) is None      # unknown tokens: no made-up total
    assert "at least $3.65" in meter.text(_usage(2_000_010, 100_000))


def test_unknown_model_shows_tokens_only():
    text = CostMeter(Settings(model="mystery")).text(_usage(12_345, 678))
    assert "12.3k in, 678 out" in text and "cost: unknown (no price for 'mystery'" in text


def test_usage_event_carries_cost_and_cost_text(project, server, monkeypatch):
    monkeypatch.chdir(project)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(project.parent / "home" / ".config"))
    loaded = load_settings(project, flags={"base_url": server.url, "api_key": TEST_KEY, "model": "test-model",
                                           "prices": {"test-model": {"input": 1.0, "output": 4.0}}}, env={})
    server.add(text_reply("a", usage={"prompt_tokens": 500_000, "completion_tokens": 1000, "total_tokens": 501_000}),
               text_reply("b", usage={"prompt_tokens": 500_000, "completion_tokens": 1000, "total_tokens": 501_000}))
    events: list[Event] = []
    rt = open_session(loaded, project, AutoApprover())
    rt.bus.subscribe(events.append)
    try:
        rt.agent.run("one")
        rt.agent.run("two")
        costs = [e.cost_usd for e in events if isinstance(e, Usage)]
        assert costs == [pytest.approx(0.504), pytest.approx(1.008)]
        assert rt.cost_text().splitlines() == ["requests: 2, tokens: 1000.0k in, 2,000 out (last prompt 500.0k)",
                                               "cost: $1.01 (test-model)"]
    finally:
        rt.close()
    rt2 = open_session(loaded, project, AutoApprover(), cont=True)
    try:
        assert "session total (with earlier runs): 1000.0k in, 2,000 out" in rt2.cost_text()
    finally:
        rt2.close()
