"""No config means no config: with no model set anywhere, a server that lists exactly one model is
asked with that model (``agent/model/served_model.py``), by ``axon run``, ``axon chat`` and ``axon doctor``,
with one ``GET /models`` at most; two models listed, or a model list that fails, leave today's
default, without a traceback. A model the user names always wins."""

from __future__ import annotations

import pytest

from axon_cli.settings.config import Settings
from tests.fakeserver import text_reply, tool_reply

DEFAULT_MODEL = Settings.model_fields["model"].default
NO_MODEL = {"AXON_MODEL": ""}            # the test environment names one; an empty value is unset


def one_model(server, name: str = "qwen-x") -> None:
    server.gets["/v1/models"] = {"object": "list", "data": [{"id": name, "object": "model"}]}


def test_run_names_the_only_model_the_server_lists(server, run_axon, project):
    one_model(server)
    server.add(text_reply("hello"), text_reply("again"))
    r = run_axon("run", "hi", "--output-format", "json", env=NO_MODEL)
    assert r.code == 0, r.stderr
    assert [req.body["model"] for req in server.requests] == ["qwen-x"]
    assert server.get_paths.count("/v1/models") == 1          # asked once, shared with the context probe


def test_every_request_of_a_run_names_it(server, run_axon, project):
    (project / "a.txt").write_text("alpha\n")
    one_model(server)
    server.add(tool_reply(("read_file", {"path": "a.txt"})), text_reply("alpha"))
    r = run_axon("run", "read a.txt", "--output-format", "json", env=NO_MODEL)
    assert r.code == 0, r.stderr
    assert [req.body["model"] for req in server.requests] == ["qwen-x", "qwen-x"]


def test_two_listed_models_keep_the_default(server, run_axon, project):
    server.gets["/v1/models"] = {"data": [{"id": "qwen-x"}, {"id": "llama-y"}]}
    server.add(text_reply("hello"))
    r = run_axon("run", "hi", "--output-format", "json", env=NO_MODEL)
    assert r.code == 0, r.stderr
    assert server.requests[0].body["model"] == DEFAULT_MODEL


@pytest.mark.parametrize("listing", ["not json at all", {"data": "nope"}, {"error": "boom"}])
def test_a_useless_model_list_keeps_the_default_without_a_traceback(server, run_axon, project, listing):
    server.gets["/v1/models"] = listing
    server.add(text_reply("hello"))
    r = run_axon("run", "hi", "--output-format", "json", env=NO_MODEL)
    assert r.code == 0, r.stderr
    assert "Traceback" not in r.stderr
    assert server.requests[0].body["model"] == DEFAULT_MODEL


def test_a_model_the_user_names_wins(server, run_axon, project):
    one_model(server)
    server.add(text_reply("hello"))
    r = run_axon("run", "hi", "--model", "mine-7b", "--output-format", "json", env=NO_MODEL)
    assert r.code == 0, r.stderr
    assert server.requests[0].body["model"] == "mine-7b"


def test_chat_names_it(server, run_axon, project):
    one_model(server)
    server.add(text_reply("hello there"))
    r = run_axon("chat", input="hi\n/exit\n", env=NO_MODEL)
    assert r.code == 0, r.stderr
    assert server.requests and server.requests[0].body["model"] == "qwen-x"


def test_doctor_and_config_say_where_the_model_came_from(server, run_axon, project):
    one_model(server)
    r = run_axon("doctor", env=NO_MODEL)
    endpoint = next(line for line in r.stdout.splitlines() if line.startswith("endpoint:"))
    assert "lists model qwen-x" in endpoint and "does not list" not in endpoint
    assert "the only model it lists" in endpoint
    c = run_axon("config", env=NO_MODEL)
    assert f"model = 'qwen-x'  # the only model {server.url}/models lists" in c.stdout


def test_a_dead_endpoint_keeps_the_default_without_a_traceback(run_axon, project):
    r = run_axon("config", env={**NO_MODEL, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert r.code == 0, r.stderr
    assert f"model = {DEFAULT_MODEL!r}  # default" in r.stdout and "Traceback" not in r.stderr
