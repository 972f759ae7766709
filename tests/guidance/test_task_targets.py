"""The *not in the files* answer check: a change task's named files are asked whether the change
happened (agent/guidance/task_files.py), in-process. The scripted end-to-end run is in test_grounding_e2e.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from axon_cli.agent.guidance.nudges import NATIVE_HINT, TEXT_HINT
from axon_cli.agent.guidance.reminders import AnswerChecks
from axon_cli.agent.guidance.task_files import TaskTargets
from axon_cli.agent.protocols.textcalls import parse_text_calls
from axon_cli.settings.config import Settings
from axon_cli.tools.dispatch import CallResult, ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "proj"
    (root / "app").mkdir(parents=True)
    (root / "old_notes.txt").write_text("meeting moved to room 4\n")
    (root / "app" / "limits.py").write_text("MAX_RETRIES = 3\n")
    (root / "config.toml").write_text("name = 'orchid'\n")
    (root / ".env").write_text("KEY=x\n")
    return ToolContext(project_root=root, state_dir=root / ".axon", session_id="s", settings=Settings())


def after_a_change(task: str, ctx: ToolContext, hint: str = NATIVE_HINT) -> AnswerChecks:
    """The checks of a turn in which one call that may change something succeeded."""
    c = AnswerChecks(task, hint, ToolRegistry.with_builtins(), ctx)
    call = ToolCall("c1", "bash", json.dumps({"command": "git config user.name x"}))
    c.saw([call], [CallResult("c1", "bash", "", True)])
    return c


def touch(path: Path, text: str) -> None:
    path.write_text(text)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))   # a new mtime even on a coarse clock


def test_a_file_emptied_instead_of_deleted_is_sent_back_with_the_rm_call(ctx):
    c = after_a_change("Delete the file old_notes.txt; it is no longer needed.", ctx)
    touch(ctx.project_root / "old_notes.txt", "")
    reminder = c.check("The file old_notes.txt has been deleted.") or ""
    assert reminder.startswith("Not done yet: old_notes.txt still exists")
    assert 'call bash with {"command": "rm old_notes.txt"}' in reminder
    assert c.check("Deleted.") is None                     # once per turn


def test_the_rm_step_is_a_text_call_for_the_text_protocol(ctx):
    reminder = after_a_change("Remove old_notes.txt.", ctx, TEXT_HINT).check("Done.") or ""
    assert parse_text_calls(reminder, ToolRegistry.with_builtins()).calls == [
        ("bash", {"command": "rm old_notes.txt"})]


def test_the_file_to_change_left_as_it_was_is_named(ctx):
    c = after_a_change("Set MAX_RETRIES in app/limits.py to 12.", ctx)
    reminder = c.check("The value of MAX_RETRIES is 12.") or ""
    assert reminder.startswith("Not done yet: app/limits.py has not changed, but the task asks you to set it")
    assert 'read_file with {"path": "app/limits.py"}' in reminder


def test_a_new_file_to_write_that_is_not_there_is_named(ctx):
    c = after_a_change("Read the name from config.toml and write just that name into a new file name.txt.", ctx)
    reminder = c.check("The name is orchid.") or ""
    assert reminder.startswith("Not done yet: name.txt does not exist yet")


@pytest.mark.parametrize("task, change", [
    ("Delete the file old_notes.txt; it is no longer needed.", lambda root: (root / "old_notes.txt").unlink()),
    ("Set MAX_RETRIES in app/limits.py to 12.", lambda root: touch(root / "app" / "limits.py", "MAX_RETRIES = 12\n")),
    ("Read the name from config.toml and write just that name into a new file name.txt.",
     lambda root: (root / "name.txt").write_text("orchid\n")),
])
def test_a_change_the_files_show_is_never_sent_back(ctx, task, change):
    c = after_a_change(task, ctx)
    change(ctx.project_root)
    assert c.check("Done: the change is made.") is None


@pytest.mark.parametrize("task", [
    "What does app/limits.py set MAX_RETRIES to?",      # a question
    "Can you delete old_notes.txt?",                      # asked, not told: the model may explain
    "Delete the secrets in .env.",                        # a sensitive file is never looked at
    "Tidy up the notes.",                                 # names no path
    "hi",
])
def test_no_reminder_without_a_named_change_to_check(ctx, task):
    assert after_a_change(task, ctx).check("Sure.") is None


def test_a_denied_change_is_the_models_to_explain(ctx):
    c = AnswerChecks("Delete old_notes.txt.", NATIVE_HINT, ToolRegistry.with_builtins(), ctx)
    call = ToolCall("c1", "bash", json.dumps({"command": "rm old_notes.txt"}))
    c.saw([call], [CallResult("c1", "bash", "denied", False, decision="deny")])
    assert c.check("You did not allow the deletion.") is None


def test_paths_outside_the_project_are_not_targets(ctx, tmp_path):
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("x")
    assert TaskTargets(f"Delete {outside} now.", ctx).targets == []


def test_an_unfinished_delete_names_the_rm_call_and_a_failed_rm_is_no_change(ctx):
    c = AnswerChecks("Delete old_notes.txt.", NATIVE_HINT, ToolRegistry.with_builtins(), ctx)
    rm = ToolCall("c1", "bash", json.dumps({"command": "rm notes/OBSOLETE"}))
    c.saw([rm], [CallResult("c1", "bash", "rm: cannot remove", True, display={"exit_code": 1})])
    reminder = c.check("The file does not exist.") or ""
    assert reminder.startswith("Not done yet: the task asks you to delete something")
    assert 'call bash with {"command": "rm old_notes.txt"}' in reminder


def test_a_change_sentence_without_a_path_refers_to_the_file_named_before_it(ctx):
    (ctx.project_root / "check.py").write_text("print('OK')\n")
    (ctx.project_root / "app.ini").write_text("workers=64\n")
    task = "Run python3 check.py. It reports a bad value in app.ini; fix that value so the check prints OK."
    assert [t.paths.keys() for t in TaskTargets(task, ctx).targets] == [{"app.ini": None}.keys()]
    reminder = after_a_change(task, ctx).check("The value must be 1..16.") or ""
    assert reminder.startswith("Not done yet: app.ini has not changed, but the task asks you to fix it")
    # a delete never guesses: "that file" is for the model to find
    assert TaskTargets("One of the files in app/ is marked OBSOLETE. Delete that file.", ctx).targets == []


def test_after_the_unfinished_reminder_the_named_file_is_the_second_and_last(ctx):
    c = AnswerChecks("Set MAX_RETRIES in app/limits.py to 12.", NATIVE_HINT, ToolRegistry.with_builtins(), ctx)
    failed = ToolCall("c0", "bash", json.dumps({"command": "git config max-retries 12"}))
    c.saw([failed], [CallResult("c0", "bash", "error: key does not contain a section", True,
                                display={"exit_code": 2})])
    assert (c.check("It could not be set.") or "").startswith("Not done yet: the task asks you to set something")
    read = ToolCall("c1", "read_file", json.dumps({"path": "app/limits.py"}))
    c.saw([read], [CallResult("c1", "read_file", "MAX_RETRIES = 3", True)])
    assert (c.check("The file has been read.") or "").startswith("Not done yet: app/limits.py has not changed")
    assert c.check("The file has been read.") is None


@pytest.mark.parametrize("answer", ["I changed nothing: it is 12 already.", "No change is needed.",
                                    "MAX_RETRIES is already 12.", "The file has not been modified."])
def test_a_plain_no_change_after_the_unfinished_reminder_is_accepted(ctx, answer):
    c = AnswerChecks("Set MAX_RETRIES in app/limits.py to 12.", NATIVE_HINT, ToolRegistry.with_builtins(), ctx)
    read = ToolCall("c1", "read_file", json.dumps({"path": "app/limits.py"}))
    c.saw([read], [CallResult("c1", "read_file", "MAX_RETRIES = 3", True)])
    assert (c.check("Here it is.") or "").startswith("Not done yet: the task asks you to set something")
    assert c.check(answer) is None
