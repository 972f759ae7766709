"""Defaults for a local server with no config: temperature, max_tokens and the context window the
server reports, for a loopback or private base_url, unless the user set them; auto as the default
tool protocol."""

from __future__ import annotations

import socket

import pytest

from axon_cli.agent.model.local_defaults import (
    LOCAL_SOURCE,
    apply_local_defaults,
    is_local_endpoint,
    probe_context_window,
    start_local_defaults,
)
from axon_cli.kernel.events import AutoApprover
from axon_cli.session.runtime.opening import open_session
from axon_cli.settings.config import Settings, load_settings
from tests.conftest import TEST_KEY
from tests.fakeserver import ScriptedServer, text_reply


@pytest.mark.parametrize("url, local", [
    ("http://127.0.0.1:8080/v1", True), ("http://localhost:11434/v1", True), ("http://[::1]:8000/v1", True),
    ("http://10.1.2.3/v1", True), ("http://192.168.0.7:8080/v1", True), ("http://172.16.0.1/v1", True),
    ("http://172.31.255.1/v1", True), ("http://172.32.0.1/v1", False), ("https://api.openai.com/v1", False),
    ("https://openrouter.ai/api/v1", False), ("http://8.8.8.8/v1", False), (None, False),
])
def test_which_endpoints_are_local(url, local):
    assert is_local_endpoint(url) is local


@pytest.mark.parametrize("gets, expected", [
    ({"/v1/models": {"data": [{"id": "test-model", "max_model_len": 32768}]}}, (32768, "/models max_model_len")),
    ({"/v1/models": {"data": [{"id": "other", "context_length": 4096},
                              {"id": "test-model", "context_length": 8192}]}}, (8192, "/models context_length")),
    ({"/props": {"default_generation_settings": {"n_ctx": 6000}},
      "/v1/models": {"data": [{"id": "m.gguf", "meta": {"n_ctx_train": 32768}}]}}, (6000, "/props n_ctx")),
    ({"/v1/models": {"data": [{"id": "m.gguf", "meta": {"n_ctx_train": 32768}}]}}, (32768, "/models n_ctx_train")),
    ({}, None),
])
def test_the_context_window_as_the_server_reports_it(gets, expected):
    with ScriptedServer() as srv:
        srv.gets.update(gets)
        assert probe_context_window(srv.url, TEST_KEY, "test-model") == expected


def test_a_server_that_does_not_answer_is_no_failure():
    with socket.socket() as s:          # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert probe_context_window(f"http://127.0.0.1:{port}/v1", None, "m", timeout=1) is None


def test_the_default_tool_protocol_is_auto():
    assert Settings().tool_protocol == "auto"


def _loaded(project, server, flags=None):
    return load_settings(project, flags={"base_url": server.url, "api_key": TEST_KEY, "model": "test-model",
                                         **(flags or {})}, env={})


def test_local_defaults_fill_only_what_the_user_left_unset(project, server, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(project.parent / "home" / ".config"))
    server.gets["/v1/models"] = {"data": [{"id": "test-model", "meta": {"n_ctx": 6000}}]}
    loaded = _loaded(project, server)
    assert apply_local_defaults(loaded) == ["temperature=0.2", "max_tokens=1024", "context_window=6000"]
    s = loaded.settings
    assert (s.temperature, s.max_tokens, s.context_window) == (0.2, 1024, 6000)
    assert loaded.source("temperature") == LOCAL_SOURCE and "/models n_ctx" in loaded.source("context_window")
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text("temperature = 0.7\ncontext_window = 20000\n")
    mine = _loaded(project, server, {"max_tokens": 300})
    assert apply_local_defaults(mine) == []
    assert (mine.settings.temperature, mine.settings.max_tokens, mine.settings.context_window) == (0.7, 300, 20000)


def test_a_hosted_endpoint_keeps_the_plain_defaults(project, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(project.parent / "home" / ".config"))
    loaded = load_settings(project, flags={"base_url": "https://api.openai.com/v1"}, env={})
    asked: list[str] = []
    assert apply_local_defaults(loaded, probe=lambda url, key, model: asked.append(url)) == []
    assert loaded.settings.temperature is None and asked == []


def test_a_session_on_a_local_server_uses_its_context_window(project, server, monkeypatch):
    monkeypatch.chdir(project)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(project.parent / "home" / ".config"))
    server.gets["/props"] = {"default_generation_settings": {"n_ctx": 6000}}
    server.add(text_reply("ok"))
    rt = open_session(_loaded(project, server), project, AutoApprover())
    try:
        rt.agent.run("hi")          # the server is asked on a thread; the first request waits for it
    finally:
        rt.close()
    assert rt.llm.settings.context_window == 6000
    assert "/v1/models" in server.get_paths and "/props" in server.get_paths


def test_the_server_is_asked_on_a_thread_and_the_waiter_waits_for_it(project, server, monkeypatch):
    import threading

    monkeypatch.setenv("XDG_CONFIG_HOME", str(project.parent / "home" / ".config"))
    answer = threading.Event()

    def slow_probe(url, key, model):
        assert answer.wait(30)
        return 7000, "/props n_ctx"

    loaded = _loaded(project, server)
    wait = start_local_defaults(loaded, probe=slow_probe)        # returns while the probe still waits
    assert loaded.settings.temperature == 0.2 and loaded.source("context_window") == "default"
    answer.set()
    wait()
    assert loaded.settings.context_window == 7000 and "/props" in loaded.source("context_window")


def test_axon_run_sends_local_defaults_and_an_explicit_setting_wins(server, run_axon, project):
    server.add(text_reply("one"), text_reply("two"))
    r = run_axon("run", "hi")
    assert r.code == 0, r.stderr
    body = server.requests[0].body
    assert (body["temperature"], body["max_tokens"]) == (0.2, 1024)
    (project / ".axon").mkdir(exist_ok=True)
    (project / ".axon" / "config.toml").write_text("temperature = 0.9\n")
    r = run_axon("run", "hi")
    assert r.code == 0, r.stderr
    body = server.requests[1].body
    assert (body["temperature"], body["max_tokens"]) == (0.9, 1024)


def test_axon_config_shows_the_local_defaults_and_where_they_came_from(server, run_axon):
    server.gets["/v1/models"] = {"data": [{"id": "test-model", "meta": {"n_ctx": 6000}}]}
    r = run_axon("config")
    assert r.code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "temperature = 0.2  # local endpoint default" in lines
    assert "context_window = 6000  # the local server (/models n_ctx)" in lines
    assert "tool_protocol = 'auto'  # default" in lines
