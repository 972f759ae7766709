"""The answer checks of one user turn (look first, no claimed work, no tools handed to the user) and
the repeat guard, in-process. Their end-to-end behaviour is in test_grounding_e2e.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from axon_cli.agent.guidance.nudges import NATIVE_HINT, TEXT_HINT
from axon_cli.agent.guidance.reminders import NO_ANSWER, AnswerChecks, file_mentions
from axon_cli.agent.guidance.repeats import ALREADY_HAVE, MAX_REFUSALS, RepeatGuard
from axon_cli.agent.protocols.textcalls import parse_text_calls
from axon_cli.settings.config import Settings
from axon_cli.tools.dispatch import CallResult, ToolCall
from axon_cli.tools.ledger import CallLedger
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry.with_builtins()


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "VERSION").write_text("2.7.1\n")
    return ToolContext(project_root=root, state_dir=root / ".axon", session_id="s", settings=Settings())


def checks(task: str, registry: ToolRegistry, ctx: ToolContext, hint: str = NATIVE_HINT) -> AnswerChecks:
    return AnswerChecks(task, hint, registry, ctx)


def call(name: str, i: int = 1, **args: object) -> ToolCall:
    return ToolCall(id=f"c{i}", name=name, arguments=json.dumps(args))


def ok(c: ToolCall, good: bool = True) -> CallResult:
    return CallResult(c.id, c.name, "result", good)


def test_file_mentions_finds_path_like_words_only():
    assert file_mentions("what does `calc` do in calc.py, src/ and VERSION? (see ./a/b.txt.)") == [
        "calc", "calc.py", "src/", "VERSION", "a/b.txt"]
    assert file_mentions("hi, what is a monad?") == []


@pytest.mark.parametrize("task, expected", [
    ("what does calc.py do?", 'call read_file with {"path": "calc.py"}'),
    ("which version is in VERSION", 'call read_file with {"path": "VERSION"}'),
    ("what is in src/", 'call list_files with {"path": "src"}'),
    ("summarise this project", "call list_files with {}"),
])
def test_an_answer_without_looking_gets_the_next_step(registry, ctx, task, expected):
    c = checks(task, registry, ctx)
    reminder = c.check("It is a calculator.")
    assert reminder is not None and reminder.startswith("Look before you answer") and expected in reminder
    assert c.check("It is a calculator.") is None          # once per turn


def test_the_look_first_step_is_a_text_call_for_the_text_protocol(registry, ctx):
    reminder = checks("what does calc.py do?", registry, ctx, TEXT_HINT).check("It adds.") or ""
    assert parse_text_calls(reminder, registry).calls == [("read_file", {"path": "calc.py"})]


@pytest.mark.parametrize("task", ["hi", "what is a monad", "explain recursion", "what does missing.py do?",
                                  "thanks!", "what is in .env?"])
def test_plain_conversation_is_never_reminded(registry, ctx, task):
    (ctx.project_root / ".env").write_text("KEY=x\n")   # a sensitive file is never pointed at
    assert checks(task, registry, ctx).check("Hello! A monad is a monoid in the category of endofunctors.") is None


def test_no_look_first_reminder_for_a_file_attached_to_the_task(registry, ctx):
    task = 'Review @calc.py for bugs.\n\nAttached files:\n<file path="calc.py">\ndef add(a, b): ...\n</file>'
    assert checks(task, registry, ctx).check("It subtracts instead of adding.") is None


def test_no_look_first_reminder_after_a_call(registry, ctx):
    c = checks("what does calc.py do?", registry, ctx)
    read = call("read_file", path="calc.py")
    c.saw([read], [ok(read)])
    assert c.check("It subtracts b from a (calc.py, line 2).") is None


@pytest.mark.parametrize("answer", ["I have created hello.txt.", "I've fixed the bug in calc.py.",
                                    "Created `hello.txt` with the text.", "The file has been updated.",
                                    "Done. I added the function.", "I ran the tests and they pass.",
                                    "All tests passed."])
def test_claimed_work_without_a_call_says_nothing_changed(registry, ctx, answer):
    c = checks("make it so", registry, ctx)
    reminder = c.check(answer)
    assert reminder is not None and reminder.startswith("Nothing has been changed or run yet")
    assert c.check(answer) is None                          # once per turn


def test_claims_backed_by_successful_calls_are_accepted(registry, ctx):
    c = checks("create hello.txt and run the tests", registry, ctx)
    write = call("write_file", 1, path="hello.txt", content="hello\n")
    test = call("bash", 2, command="python -m pytest -q")
    c.saw([write, test], [ok(write), ok(test)])
    (ctx.project_root / "hello.txt").write_text("hello\n")     # what the write did
    assert c.check("I have created hello.txt and ran the tests: all tests passed.") is None


def test_a_failed_or_read_only_call_is_no_evidence_of_a_change(registry, ctx):
    c = checks("fix calc.py", registry, ctx)
    read, edit = call("read_file", 1, path="calc.py"), call("edit_file", 2, path="calc.py", old_string="-",
                                                           new_string="+")
    c.saw([read, edit], [ok(read), ok(edit, good=False)])
    assert (c.check("I fixed calc.py.") or "").startswith("Nothing has been changed")
    honest = checks("fix calc.py", registry, ctx)
    honest.saw([read], [ok(read)])
    first = honest.check("The function subtracts; it should add. I have not changed anything yet.")
    assert (first or "").startswith("Not done yet: the task asks you to fix")   # no claim, but unfinished
    assert honest.check("I changed nothing: the function subtracts, it should add.") is None


def test_read_only_bash_is_no_change_but_is_a_run(registry, ctx):
    c = checks("run ls", registry, ctx)
    ls = call("bash", command="ls")
    c.saw([ls], [ok(ls)])
    assert c.check("I ran ls: calc.py, src.") is None
    assert (c.check("I have deleted src.") or "").startswith("Nothing has been changed")


@pytest.mark.parametrize("answer", ["You can call read_file to see it.", "You should use the `bash` tool.",
                                    "Use the following command:\n```\nrm junk\n```", "You can run `pytest -q`."])
def test_telling_the_user_to_use_a_tool_is_reminded(registry, ctx, answer):
    c = checks("clean up the junk", registry, ctx)
    reminder = c.check(answer)
    assert reminder is not None and reminder.startswith("The user cannot call your tools")
    assert c.check(answer) is None


def test_a_command_shown_for_a_how_to_question_is_an_answer(registry, ctx):
    answer = "Use the following command:\n```\npip install requests\n```"
    assert checks("how do I install requests?", registry, ctx).check(answer) is None


def test_repeat_guard_refuses_the_third_identical_read_until_something_changes(registry):
    ledger = CallLedger(registry)
    guard = RepeatGuard(ledger)
    read = call("read_file", path="a.txt")
    for _ in range(2):
        assert guard.refusal(read) is None
        ledger.record(read, ok(read))
    refusal = guard.refusal(read)
    assert refusal == ALREADY_HAVE.format(name="read_file", n=2) and "take the next step" in refusal.lower()
    other = call("read_file", path="b.txt")
    assert guard.refusal(other) is None                    # other arguments are another call
    write = call("write_file", 2, path="a.txt", content="x")
    assert guard.refusal(write) is None
    ledger.record(write, ok(write))
    assert guard.refusal(read) is None                     # something changed: reading again is fair


def test_repeat_guard_refuses_the_third_identical_write_in_a_row(registry):
    ledger = CallLedger(registry)
    guard = RepeatGuard(ledger)
    write = call("write_file", path="old.txt", content="same")
    for _ in range(2):
        assert guard.refusal(write) is None
        ledger.record(write, ok(write))
    assert guard.refusal(write) == ALREADY_HAVE.format(name="write_file", n=2)
    rm = call("bash", 2, command="rm -f x")
    ledger.record(rm, ok(rm))
    again = call("write_file", 4, path="old.txt", content="same")   # a new call id, as from the model
    assert guard.refusal(again) is None                    # another change in between: fair again
    ledger.record(again, ok(again))
    ledger.record(again, ok(again))
    failed = call("bash", 3, command="rm -f y")
    ledger.record(failed, ok(failed, good=False))
    assert guard.refusal(call("write_file", 5, path="old.txt", content="same")) is not None   # a failure changed nothing


def test_repeat_guard_stops_after_refusals(registry):
    ledger = CallLedger(registry)
    guard = RepeatGuard(ledger)
    ls = call("bash", 2, command="ls")
    ledger.record(ls, ok(ls))
    ledger.record(ls, ok(ls))
    for _ in range(MAX_REFUSALS):
        assert not guard.stopped
        assert guard.refusal(ls) is not None
    assert guard.stopped and "repeating the same calls" in guard.stop_message()


def test_history_told_in_answer_to_a_question_is_no_claim(registry, ctx):
    c = checks("what changed in the last commit?", registry, ctx)
    log = call("bash", command="git log -1 -p")
    c.saw([log], [ok(log)])
    assert c.check("A subtract function has been added to calc.py, and the tests passed in CI.") is None
    mine = checks("can you fix calc.py?", registry, ctx)
    mine.saw([log], [ok(log)])
    assert (mine.check("Sure, I have fixed calc.py.") or "").startswith("Nothing has been changed")


def test_a_file_read_in_an_earlier_turn_and_unchanged_needs_no_new_look(registry, ctx):
    path = ctx.project_root / "calc.py"
    ctx.file_state.record(path, path.stat().st_mtime_ns, path.stat().st_size, "")
    assert checks("and what does calc.py return?", registry, ctx).check("a - b") is None
    path.write_text("def add(a, b):\n    return a + b\n")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    assert (checks("and now calc.py?", registry, ctx).check("a - b") or "").startswith("Look before")


@pytest.mark.parametrize("task, verb", [
    ("Delete the file old_notes.txt; it is no longer needed.", "delete"),
    ("Read the name from config/db.toml and write just that name into a new file dbname.txt.", "write"),
    ("Run python3 check.py. It reports a bad value in app.ini; fix that value.", "fix"),
    ("In server.cfg, change the port from 8080 to 9417.", "change"),
])
def test_a_change_task_answered_without_any_change_is_sent_back_once(registry, ctx, task, verb):
    c = checks(task, registry, ctx)
    read = call("read_file", path="x.txt")
    c.saw([read], [ok(read)])
    assert (c.check("The name is orchid.") or "").startswith(f"Not done yet: the task asks you to {verb} something")
    second = c.check("The name is orchid.")                                # once per turn; then, where the
    assert second is None or second.startswith("Not done yet: dbname.txt does not exist yet")   # files say
    assert c.check("The name is orchid.") is None
    done = checks(task, registry, ctx)
    write = call("write_file", 2, path="x.txt", content="x")
    done.saw([write], [ok(write)])
    assert not (done.check("Done: x.txt now holds x.") or "").startswith("Not done yet: the task asks")
    # (whether x.txt was the file the task names is the *not in the files* check's: test_task_targets.py)


@pytest.mark.parametrize("task", ["How do I delete a branch?", "Run the tests and tell me how many ran.",
                                  "What does the add function return?", "hi"])
def test_questions_and_conversation_are_no_change_tasks(registry, ctx, task):
    assert checks(task, registry, ctx).check("Here is the answer: 12.") is None


def test_a_bare_task_is_complete_is_asked_for_the_result(registry, ctx):
    c = checks("Run the tests and tell me how many ran.", registry, ctx)
    run = call("bash", command="python3 -m unittest")
    c.saw([run], [ok(run)])
    assert c.check("The task is complete.") == NO_ANSWER
    assert checks("Run the tests and tell me how many ran.", registry, ctx).check("12 tests ran; the task is complete.") is None


def test_a_denied_change_is_explained_not_sent_back_but_a_failed_one_is(registry, ctx):
    task = "Delete the file old_notes.txt."
    rm = call("bash", command="rm old_notes.txt")
    denied = checks(task, registry, ctx)
    denied.saw([rm], [CallResult(rm.id, rm.name, "Permission denied: the user said no", False, decision="deny")])
    assert denied.check("You did not allow deleting it, so it is still there.") is None
    failed = checks(task, registry, ctx)
    failed.saw([rm], [ok(rm, good=False)])
    assert (failed.check("It is still there.") or "").startswith("Not done yet")


def test_in_plan_mode_a_plan_is_never_told_to_make_the_change(registry, ctx):
    """A plan after looking: in default mode the unfinished-change check says "do it now"; in plan
    mode nothing pushes for the change (look first still applies)."""
    task, plan = "fix the bug in calc.py", "Plan:\n1. In calc.py, I will change `a - b` to `a + b`.\n2. Run it."
    read = call("read_file", path="calc.py")
    doing = checks(task, registry, ctx)
    doing.saw([read], [ok(read)])
    assert doing.check(plan) is not None
    planning = AnswerChecks(task, NATIVE_HINT, registry, ctx, planning=True)
    planning.saw([read], [ok(read)])
    assert planning.check(plan) is None
    unread = AnswerChecks(task, NATIVE_HINT, registry, ctx, planning=True).check(plan) or ""
    assert unread.startswith("Look before you answer")


def test_in_plan_mode_a_plan_after_looking_is_no_unfinished_step(registry, ctx):
    from axon_cli.agent.guidance.nudges import Nudger

    plan = "1. I will edit calc.py to return a + b."
    doing, planning = Nudger(NATIVE_HINT, True, registry, ctx), Nudger(NATIVE_HINT, True, registry, ctx, planning=True)
    for n in (doing, planning):
        n.saw_calls()
    assert doing.check(plan) is not None and planning.check(plan) is None
    assert Nudger(NATIVE_HINT, True, registry, ctx, planning=True).check("Let me read calc.py first.") is not None
