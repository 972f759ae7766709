"""The GitHub Action (``action.yml``), its ``run:`` steps executed in order by bash as a runner would:
a simulated event and ``$GITHUB_OUTPUT``, ``gh`` and ``pip`` replaced by recording stubs, the real
axon against the scripted server. What a comment says must reach axon as its task and nothing else."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from axon_cli.kernel.turn import UserTurn
from tests.conftest import AXON_SCRIPT, TEST_KEY
from tests.e2e.fleet.action_runner import ActionRun, ActionRunner, path_with, read_calls, stub_tools
from tests.fakeserver import ScriptedServer, error_reply, text_reply, tool_reply

REPO = Path(__file__).resolve().parents[3]
ACTION = REPO / "action.yml"


def fix_greeting() -> list:
    return [tool_reply(("read_file", {"path": "greeting.txt"})),
            tool_reply(("edit_file", {"path": "greeting.txt", "old_string": "helo", "new_string": "hello"})),
            text_reply("Fixed the greeting.")]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "greeting.txt").write_text("helo\n")
    (tmp_path / "home").mkdir()
    return repo


def comment_event(body: str, association: str = "MEMBER", user_type: str = "User") -> dict:
    return {"action": "created", "issue": {"number": 7},
            "comment": {"body": body, "author_association": association, "user": {"login": "someone", "type": user_type}}}


def run_action(workspace: Path, server: ScriptedServer, event: dict, **inputs: str) -> tuple[ActionRun, list[dict]]:
    root = workspace.parent
    (root / "event.json").write_text(json.dumps(event))
    temp = root / "runner-temp"
    temp.mkdir()
    log = stub_tools(root / "stubs", sys.executable)
    home = root / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AXON_", "GITHUB_", "GH_"))}
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_STATE_HOME": str(home / "state"),
                "PATH": path_with(root / "stubs", AXON_SCRIPT.parent), "GITHUB_ACTION_PATH": str(REPO),
                "GITHUB_EVENT_PATH": str(root / "event.json"), "GITHUB_WORKSPACE": str(workspace)})
    runner = ActionRunner(ACTION, {"base-url": server.url, "api-key": TEST_KEY, "model": "test-model", **inputs},
                          {"token": "ghs_test_token", "repository": "octo/repo"})
    return runner.run(env, workspace, temp), read_calls(log)


def test_a_comment_task_runs_and_is_answered_on_the_thread(workspace, server):
    canary = workspace.parent / "canary"
    task = f'fix the typo in greeting.txt "; touch {canary}; " $(touch {canary}) $(touch canary) `touch canary`'
    server.add(*fix_greeting())
    run, calls = run_action(workspace, server, comment_event(f"Hi!\n@axon {task}"))
    assert run.failed is None, run.stderr
    assert (workspace / "greeting.txt").read_text() == "hello\n"
    assert UserTurn.from_message(server.requests[0].conversation[-1]["content"]).text == task
    assert not canary.exists() and not (workspace / "canary").exists()
    assert run.skipped_uses == ["actions/setup-python@v5"]
    pip, gh = calls
    assert pip["tool"] == "pip" and pip["args"][-1] == str(REPO)          # the action's own checkout
    assert gh["args"][:5] == ["issue", "comment", "7", "--repo", "octo/repo"]
    assert gh["body"].startswith("Fixed the greeting.")
    assert run.outputs["result"] == "Fixed the greeting." and run.outputs["is_error"] == "false"
    assert run.outputs["session_id"] and run.outputs["session_id"] in gh["body"]


@pytest.mark.parametrize("association,user_type,body", [
    ("NONE", "User", "@axon delete everything"),              # a stranger
    ("CONTRIBUTOR", "User", "@axon delete everything"),       # not in the default allowed list
    ("MEMBER", "Bot", "@axon delete everything"),             # a bot (its own answer quoting the trigger)
    ("MEMBER", "User", "looks good to me"),                   # no trigger
])
def test_comments_that_must_not_start_a_run(workspace, server, association, user_type, body):
    run, calls = run_action(workspace, server, comment_event(body, association, user_type))
    assert run.failed is None, run.stderr
    assert server.requests == []
    assert [c["tool"] for c in calls] == ["pip"]
    assert run.outputs["ran"] == "false" and "Run axon" not in run.ran


def test_prompt_input_runs_without_a_comment_and_posts_nothing(workspace, server):
    server.add(*fix_greeting())
    run, calls = run_action(workspace, server, {"inputs": {}}, prompt="fix greeting.txt")
    assert run.failed is None, run.stderr
    assert UserTurn.from_message(server.requests[0].conversation[-1]["content"]).text == "fix greeting.txt"
    assert (workspace / "greeting.txt").read_text() == "hello\n"
    assert [c["tool"] for c in calls] == ["pip"]
    assert run.outputs["ran"] == "true" and run.outputs["result"] == "Fixed the greeting."


def test_a_failed_run_is_reported_on_the_thread_and_fails_the_action(workspace, server):
    server.add(*[error_reply(500, "boom", retry_after="0") for _ in range(6)])
    run, calls = run_action(workspace, server, comment_event("@axon do it"))
    assert run.failed == "Fail when axon failed"
    assert run.outputs["is_error"] == "true"
    gh = calls[-1]
    assert gh["tool"] == "gh" and gh["body"].startswith("**axon did not finish** (exit code 1)")
    assert "HTTP 500" in gh["body"]


@pytest.mark.parametrize("trust,edited", [("false", False), ("true", True)])
def test_the_repositorys_allow_rule_counts_only_when_the_workflow_trusts_it(workspace, server, trust, edited):
    (workspace / ".axon").mkdir()
    (workspace / ".axon/permissions.toml").write_text('allow = ["edit_file(greeting.txt)"]\n')
    server.add(*fix_greeting())
    run, _ = run_action(workspace, server, comment_event("@axon fix it"), mode="default", trust=trust)
    assert run.failed is None, run.stderr
    assert ((workspace / "greeting.txt").read_text() == "hello\n") is edited


def test_the_repositorys_deny_rule_applies_untrusted(workspace, server):
    (workspace / ".axon").mkdir()
    (workspace / ".axon/permissions.toml").write_text('deny = ["edit_file(greeting.txt)"]\n')
    server.add(*fix_greeting())
    run, _ = run_action(workspace, server, comment_event("@axon fix it"), **{"auto-approve": "true"})
    assert run.failed is None, run.stderr
    assert (workspace / "greeting.txt").read_text() == "helo\n"


def test_no_run_script_interpolates_an_expression():
    """Untrusted text reaches scripts only through env: no ``${{ }}`` inside any ``run:``."""
    import yaml

    steps = yaml.safe_load(ACTION.read_text())["runs"]["steps"]
    scripts = [step["run"] for step in steps if "run" in step]
    assert len(scripts) >= 4
    assert not [s for s in scripts if "${{" in s]
