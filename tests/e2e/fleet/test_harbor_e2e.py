"""The Harbor adapter's commands, run by bash in a temp dir as Harbor would run them in a task
environment: the install step puts this checkout into a fresh venv (``installed_venv``, once a
session: ~25 s), the run step points the installed axon at the scripted server. No container engine is needed."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from axon_cli.app.fleet.harbor_commands import (
    RESULT_FILE,
    read_result,
    run_command,
    run_env,
    system_packages_command,
    usage_of,
)
from axon_cli.kernel.turn import UserTurn
from tests.conftest import TEST_KEY
from tests.e2e.fleet.conftest import base_env, bash
from tests.fakeserver import ScriptedServer, text_reply, tool_reply

CONTRACT_KEYS = {"result", "is_error", "num_turns", "session_id", "usage", "duration_ms"}


@pytest.fixture
def task_dir(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    work = tmp_path / "app"
    work.mkdir()
    (work / "greeting.txt").write_text("helo wrld\n")
    return work


def run_task(task: str, work: Path, venv: str, server: ScriptedServer, max_turns: int | None = None,
             model: str | None = "openai/test-model") -> tuple[subprocess.CompletedProcess[str], Path]:
    logs = work.parent / "logs" / "agent"
    env = {**base_env(work.parent / "home"),
           **run_env(task, model, {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": TEST_KEY})}
    return bash(run_command(str(logs), venv, max_turns=max_turns), work, env), logs


def test_installed_axon_changes_the_task_file_and_leaves_the_result(installed_venv, task_dir, server):
    server.add(tool_reply(("read_file", {"path": "greeting.txt"})),
               tool_reply(("edit_file", {"path": "greeting.txt", "old_string": "helo wrld", "new_string": "hello world"})),
               text_reply("Fixed the typos."))
    ran, logs = run_task("Fix the typos in greeting.txt", task_dir, installed_venv, server)
    assert ran.returncode == 0, ran.stderr
    assert (task_dir / "greeting.txt").read_text() == "hello world\n"
    result = json.loads((logs / RESULT_FILE).read_text())
    assert set(result) >= CONTRACT_KEYS
    assert result["result"] == "Fixed the typos." and result["is_error"] is False
    assert UserTurn.from_message(server.requests[0].conversation[-1]["content"]).text == "Fix the typos in greeting.txt"
    assert server.requests[0].body["model"] == "test-model"            # Harbor's provider prefix dropped
    headers = {k.lower(): v for k, v in server.requests[0].headers.items()}
    assert headers["authorization"] == f"Bearer {TEST_KEY}"
    prompt, completion = usage_of(read_result(logs) or {})
    assert prompt == result["usage"]["prompt_tokens"] > 0 and completion == result["usage"]["completion_tokens"] > 0


def test_task_text_never_runs_as_shell(installed_venv, task_dir, server):
    canary = task_dir.parent / "canary"
    task = f'"; touch {canary}; " $(touch {canary}) `touch {canary}` \'; touch {canary}; \''
    server.add(text_reply("Nothing to do."))
    ran, _ = run_task(task, task_dir, installed_venv, server)
    assert ran.returncode == 0, ran.stderr
    assert not canary.exists()
    assert server.requests[0].conversation[-1]["content"] == task


def test_a_task_that_looks_like_a_flag_is_the_task(installed_venv, task_dir, server):
    server.add(text_reply("ok"))
    ran, logs = run_task("--version", task_dir, installed_venv, server)
    assert ran.returncode == 0, ran.stderr
    assert server.requests[0].conversation[-1]["content"] == "--version"
    assert json.loads((logs / RESULT_FILE).read_text())["result"] == "ok"


def test_turn_limit_is_an_outcome_for_the_verifier(installed_venv, task_dir, server):
    server.add(tool_reply(("write_file", {"path": "partial.txt", "content": "half\n"})))
    ran, logs = run_task("Do a long job", task_dir, installed_venv, server, max_turns=1)
    assert ran.returncode == 0, ran.stderr
    assert (task_dir / "partial.txt").read_text() == "half\n"
    assert json.loads((logs / RESULT_FILE).read_text())["is_error"] is True


def test_an_endpoint_failure_fails_the_step_with_axons_message(installed_venv, task_dir, server):
    from tests.fakeserver import error_reply

    server.add(*[error_reply(401, "Incorrect API key provided") for _ in range(6)])
    ran, _ = run_task("anything", task_dir, installed_venv, server)
    assert ran.returncode == 1
    assert "Traceback" not in ran.stderr and ran.stderr.strip()   # Harbor classifies the failure from it


def test_system_packages_step_tolerates_a_failing_apt(tmp_path):
    stubs = tmp_path / "bin"
    stubs.mkdir()
    calls = tmp_path / "apt-calls"
    (stubs / "apt-get").write_text(f'#!/bin/sh\necho "$@" >> {calls}\nexit 100\n')
    (stubs / "apt-get").chmod(0o755)
    env = {**base_env(tmp_path), "PATH": f"{stubs}:{os.environ['PATH']}"}
    ran = bash(system_packages_command(), tmp_path, env)
    assert ran.returncode == 0
    assert "update" in calls.read_text()
    assert "could not install" in ran.stderr
