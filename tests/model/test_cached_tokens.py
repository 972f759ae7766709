"""Cached prompt tokens, read from the usage the server sends (an SDK object or a plain dict)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from axon_cli.agent.model.turns import cached_tokens


@pytest.mark.parametrize(("usage", "cached"), [
    (SimpleNamespace(prompt_tokens=10, prompt_tokens_details=SimpleNamespace(cached_tokens=8)), 8),
    (SimpleNamespace(prompt_tokens=10, prompt_tokens_details=SimpleNamespace(cached_tokens=0)), 0),
    (SimpleNamespace(prompt_tokens=10, prompt_tokens_details=None), None),
    (SimpleNamespace(prompt_tokens=10), None),
    (SimpleNamespace(prompt_tokens_details={"cached_tokens": 5}), 5),
    ({"prompt_tokens_details": {"cached_tokens": 3}}, 3),
    ({"prompt_tokens_details": {"cached_tokens": "3"}}, None),
    ({"prompt_tokens_details": {"cached_tokens": True}}, None),
    ({}, None),
])
def test_cached_tokens_only_when_the_server_says(usage, cached):
    assert cached_tokens(usage) == cached
