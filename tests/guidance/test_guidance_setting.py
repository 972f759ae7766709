"""The ``guidance`` setting: auto (on for a local endpoint or a small model), on, off. With it off the
loop takes replies as they are, runs every call, and imports nothing from ``axon_cli/agent/guidance/``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axon_cli.agent.guidance.nudges import EMPTY_NUDGE
from axon_cli.agent.guidance.repeats import ALREADY_HAVE
from axon_cli.agent.model.endpoints import guidance_on, is_small_model
from axon_cli.settings.config import Settings
from tests.fakeserver import text_reply, tool_reply

SMALL = ["qwen2.5-coder-1.5b", "qwen2.5-coder:1.5b-instruct-q4_K_M", "llama3.2:3b", "phi", "phi3:mini", "gemma:2b",
         "Mistral-7B-Instruct-v0.3", "qwen2.5-coder:14b", "smollm2-135m", "tinyllama", "gemini-1.5-flash-8b"]
LARGE = ["gpt-4o", "gpt-4o-mini", "claude-3-5-sonnet", "llama-3.1-70b-instruct", "mixtral-8x7b", "qwen3-30b-a3b",
         "deepseek-coder-v2:16b", "delphi-large", "o1", "test-model"]


@pytest.mark.parametrize("model", SMALL)
def test_small_models_by_name(model: str) -> None:
    assert is_small_model(model)


@pytest.mark.parametrize("model", LARGE)
def test_large_or_unknown_models_by_name(model: str) -> None:
    assert not is_small_model(model)


@pytest.mark.parametrize(("guidance", "base_url", "model", "on"), [
    ("auto", "http://127.0.0.1:8080/v1", "gpt-4o", True),          # local endpoint
    ("auto", "http://192.168.1.20:11434/v1", "gpt-4o", True),      # private network
    ("auto", "https://api.example.com/v1", "llama3.2:3b", True),   # small model anywhere
    ("auto", None, "gpt-4o", False),
    ("auto", "https://api.example.com/v1", "gpt-4o", False),
    ("off", "http://127.0.0.1:8080/v1", "qwen2.5-coder-1.5b", False),
    ("on", None, "gpt-4o", True),
])
def test_guidance_on_follows_the_setting(guidance: str, base_url: str | None, model: str, on: bool) -> None:
    settings = Settings(guidance=guidance, base_url=base_url, model=model)  # type: ignore[arg-type]
    assert guidance_on(settings) is on


def set_guidance(project: Path, value: str) -> None:
    (project / ".axon").mkdir(exist_ok=True)
    (project / ".axon" / "config.toml").write_text(f'guidance = "{value}"\n')


def guidance_imported(stderr: str) -> bool:
    """From ``PYTHONPROFILEIMPORTTIME``'s report: whether any module of the guidance package was imported."""
    return any(line.split("|")[-1].strip().startswith("axon_cli.agent.guidance") for line in stderr.splitlines())


@pytest.mark.parametrize("value", ["auto", "off"])
def test_an_empty_reply_is_nudged_only_with_guidance_on(server, run_axon, project, value: str) -> None:
    set_guidance(project, value)    # the scripted server is on 127.0.0.1: auto is on
    server.add(text_reply(""), text_reply("the answer"))
    r = run_axon("run", "t", "--output-format", "json", env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert r.code == 0, r.stderr
    if value == "auto":
        assert len(server.requests) == 2
        assert server.requests[1].messages[-1] == {"role": "user", "content": EMPTY_NUDGE}
        assert json.loads(r.stdout)["result"] == "the answer"
        assert guidance_imported(r.stderr)
    else:
        assert len(server.requests) == 1                     # the empty reply is the answer
        assert json.loads(r.stdout)["result"] == ""
        assert not guidance_imported(r.stderr)


@pytest.mark.parametrize("value", ["on", "off"])
def test_a_third_identical_read_is_refused_only_with_guidance_on(server, run_axon, project, value: str) -> None:
    set_guidance(project, value)
    (project / "a.txt").write_text("alpha-content\n")
    read = ("read_file", {"path": "a.txt"})
    server.add(tool_reply(read), tool_reply(read), tool_reply(read), text_reply("done"))
    r = run_axon("run", "read a.txt", "--output-format", "json")
    assert r.code == 0, r.stderr
    third = [m for m in server.requests[3].messages if m["role"] == "tool"][-1]["content"]
    refused = ALREADY_HAVE.format(name="read_file", n=2)
    if value == "on":
        assert refused in third and "alpha-content" not in third
    else:
        assert "alpha-content" in third and refused not in third


@pytest.mark.parametrize(("env", "config", "on"), [
    ({"OPENAI_BASE_URL": "https://llm.example.com/v1"}, "", False),                       # cloud, default model
    ({"OPENAI_BASE_URL": "https://llm.example.com/v1", "AXON_MODEL": "gpt-4o"}, "", False),
    ({"OPENAI_BASE_URL": "https://llm.example.com/v1", "AXON_MODEL": "qwen2.5-coder:3b"}, "", True),   # small
    ({"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"}, "", True),                            # local endpoint
    ({"OPENAI_BASE_URL": "http://192.168.1.5:8000/v1", "AXON_MODEL": "gpt-4o"}, "", True),   # private network
    ({"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"}, 'guidance = "off"\n', False),          # overridden
    ({"OPENAI_BASE_URL": "https://llm.example.com/v1"}, 'guidance = "on"\n', True),
    ({}, "", False),                                                                         # api.openai.com
])
def test_the_default_follows_the_endpoint_and_model_as_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               env: dict[str, str], config: str, on: bool) -> None:
    """The decision on the real settings loader's result (environment and project config), no server."""
    from axon_cli.settings.config import load_settings

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))     # no user config file
    root = tmp_path / "proj"
    (root / ".axon").mkdir(parents=True)
    if config:
        (root / ".axon" / "config.toml").write_text(config)
    loaded = load_settings(root, env={"OPENAI_API_KEY": "k", **env}, trust_run=True)
    assert guidance_on(loaded.settings) is on


def test_an_unconfigured_local_server_gets_guidance_with_the_model_it_serves(server, run_axon, project) -> None:
    """No model and no config: the loopback server's only model is used and guidance is on (an empty
    reply is nudged); with guidance = "off" in the project config, it is not."""
    server.gets["/v1/models"] = {"data": [{"id": "qwen2.5-coder-1.5b-instruct"}]}
    server.add(text_reply(""), text_reply("the answer"))
    r = run_axon("run", "t", "--output-format", "json", env={"AXON_MODEL": ""})
    assert r.code == 0, r.stderr
    assert [q.body["model"] for q in server.requests] == ["qwen2.5-coder-1.5b-instruct"] * 2
    assert server.requests[1].messages[-1] == {"role": "user", "content": EMPTY_NUDGE}
    set_guidance(project, "off")
    server.add(text_reply(""))
    r = run_axon("run", "t", "--output-format", "json", env={"AXON_MODEL": ""})
    assert r.code == 0, r.stderr
    assert len(server.requests) == 3 and json.loads(r.stdout)["result"] == ""     # the empty reply is taken
