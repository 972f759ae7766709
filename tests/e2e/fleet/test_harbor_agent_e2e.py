"""``AxonAgent`` itself, driven as Harbor drives an installed agent (``install``, ``run``, then
``populate_context_post_run`` on the copied-back logs), over a Harbor stand-in (``harbor_stub.py``:
Harbor needs Python >= 3.12) and a task environment that is a local directory."""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from pathlib import Path, PurePosixPath

import pytest

from tests.conftest import TEST_KEY
from tests.e2e.fleet.conftest import base_env
from tests.e2e.fleet.harbor_stub import LocalEnvironment, write_stub
from tests.fakeserver import text_reply, tool_reply


@pytest.fixture
def harbor_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.syspath_prepend(str(write_stub(tmp_path / "stub")))
    for name in [m for m in sys.modules if m == "harbor" or m.startswith("harbor.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.delitem(sys.modules, "axon_cli.app.fleet.harbor_agent", raising=False)
    module = importlib.import_module("axon_cli.app.fleet.harbor_agent")
    yield module
    for name in [m for m in sys.modules if m == "harbor" or m.startswith("harbor.")]:
        del sys.modules[name]
    sys.modules.pop("axon_cli.app.fleet.harbor_agent", None)


def test_run_solves_the_task_and_reports_usage_to_harbor(harbor_agent, installed_venv, tmp_path, server):
    from harbor.models.agent.context import AgentContext

    work, logs = tmp_path / "app", tmp_path / "logs"
    work.mkdir()
    (work / "notes.txt").write_text("draft\n")
    server.add(tool_reply(("read_file", {"path": "notes.txt"})),
               tool_reply(("edit_file", {"path": "notes.txt", "old_string": "draft", "new_string": "final"})),
               text_reply("Done."))
    agent = harbor_agent.AxonAgent(logs, model_name="openai/test-model", venv=installed_venv,
                                   environment_logs_dir=PurePosixPath(str(logs)),
                                   extra_env={"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": TEST_KEY})
    environment = LocalEnvironment(work, base_env(tmp_path))
    context = AgentContext()
    asyncio.run(agent.run("Make notes.txt final", environment, context))
    agent.populate_context_post_run(context)
    assert (work / "notes.txt").read_text() == "final\n"
    result = json.loads((logs / "axon.json").read_text())
    assert context.n_input_tokens == result["usage"]["prompt_tokens"] > 0
    assert context.n_output_tokens == result["usage"]["completion_tokens"] > 0
    assert context.metadata == {key: result[key] for key in ("session_id", "num_turns", "is_error", "duration_ms")}
    assert server.requests[0].body["model"] == "test-model"
    assert TEST_KEY not in environment.calls[0]["command"]          # the key travels in env, not the command


def test_install_runs_packages_as_root_then_axon_as_the_agent(harbor_agent, tmp_path):
    agent = harbor_agent.AxonAgent(tmp_path / "logs", install_spec="axon-cli==0.1.0")
    environment = LocalEnvironment(tmp_path, {}, dry=True)
    asyncio.run(agent.install(environment))
    root, user = environment.calls
    assert root["user"] == "root" and "apt-get install" in str(root["command"])
    assert user["user"] is None and user["env"] == {"AXON_INSTALL_SPEC": "axon-cli==0.1.0"}
    assert "pip install" in str(user["command"])


def test_a_missing_result_leaves_harbors_context_alone(harbor_agent, tmp_path):
    from harbor.models.agent.context import AgentContext

    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "axon.json").write_text("not json")
    context = AgentContext()
    harbor_agent.AxonAgent(tmp_path / "logs").populate_context_post_run(context)
    assert context.n_input_tokens is None and context.metadata is None
