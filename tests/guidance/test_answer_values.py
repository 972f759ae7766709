"""The *unseen value* answer check (agent/guidance/values.py): a question answered with a value no tool result
of the turn shows is asked once to check it; counts, conversation and grounded answers never are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axon_cli.agent.guidance.nudges import NATIVE_HINT
from axon_cli.agent.guidance.reminders import AnswerChecks
from axon_cli.settings.config import Settings
from axon_cli.tools.dispatch import CallResult, ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(project_root=tmp_path, state_dir=tmp_path / ".axon", session_id="s", settings=Settings())


def after(task: str, output: str, ctx: ToolContext) -> AnswerChecks:
    c = AnswerChecks(task, NATIVE_HINT, ToolRegistry.with_builtins(), ctx)
    call = ToolCall("c1", "bash", json.dumps({"command": "grep timeout_ms service/settings.ini | awk '{print $2}'"}))
    c.saw([call], [CallResult("c1", "bash", output, True, display={"exit_code": 0})])
    return c


def test_a_value_no_result_shows_is_sent_back_once(ctx):
    c = after("What is timeout_ms set to in service/settings.ini?", "=\n=\nexit code 0", ctx)
    reminder = c.check("The timeout_ms setting in service/settings.ini is 120.") or ""
    assert reminder.startswith("Check your answer: it says 120, but no tool result in this turn shows that value")
    assert c.check("It is 120.") is None


@pytest.mark.parametrize("task, output, answer", [
    ("What is timeout_ms set to?", "timeout_ms = 7341\n", "timeout_ms is 7341."),          # shown
    ("Which version does pyproject.toml declare?", 'version = "0.4.2"\n', 'The version is "0.4.2".'),
    ("How many TODO comments are there?", "a.py:1: # TODO\nb.py:4: # TODO\n", "There are 12."),  # a count
    ("What is timeout_ms set to?", "=\n", "I could not find it."),                          # no value
    ("What is on line 42 of a.py?", "x = 1\n", "Line 42 holds x = 1."),                      # from the question
    ("Set the port to 9417.", "done\n", "The port is now 9999."),                          # not a question
])
def test_grounded_answers_counts_and_tasks_are_not_checked(ctx, task, output, answer):
    assert not (after(task, output, ctx).check(answer) or "").startswith("Check your answer")


def test_no_check_without_any_tool_call(ctx):
    (ctx.project_root / "notes.md").write_text("x\n")
    c = AnswerChecks("what is 6 times 7?", NATIVE_HINT, ToolRegistry.with_builtins(), ctx)
    assert c.check("It is 42.") is None
