"""The Harbor adapter's pure helpers: model names, the run environment, reading the result back."""

from __future__ import annotations

import pytest

from axon_cli.app.fleet.harbor_commands import RESULT_FILE, axon_model_name, read_result, run_env, usage_of


@pytest.mark.parametrize("harbor,axon", [
    ("openai/gpt-4.1", "gpt-4.1"), ("openai/Qwen/Qwen3-8B", "Qwen/Qwen3-8B"), ("local-model", "local-model"),
    (None, None), ("", None),
])
def test_provider_prefix_is_dropped(harbor, axon):
    assert axon_model_name(harbor) == axon


def test_harbors_model_beats_axon_model_and_empty_values_are_left_out():
    env = run_env("the task", "openai/m1", {"AXON_MODEL": "m0", "OPENAI_BASE_URL": "", "OPENAI_API_KEY": "k",
                                            "HOME": "/root"})
    assert env == {"AXON_MODEL": "m1", "OPENAI_API_KEY": "k", "AXON_TASK": "the task"}
    assert run_env("t", None, {"AXON_MODEL": "m0"})["AXON_MODEL"] == "m0"


@pytest.mark.parametrize("text", ["", "not json", "[1]", '"a string"'])
def test_an_unreadable_result_is_none(tmp_path, text):
    (tmp_path / RESULT_FILE).write_text(text)
    assert read_result(tmp_path) is None


def test_usage_takes_only_integers():
    assert usage_of({"usage": {"prompt_tokens": 5, "completion_tokens": 2}}) == (5, 2)
    assert usage_of({"usage": {"prompt_tokens": "5"}}) == (None, None)
    assert usage_of({}) == (None, None)
