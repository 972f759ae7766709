"""Grounded answers through the real ``axon run`` and the scripted server: look before answering,
no claimed work without a call that did it, no tools handed to the user, no idle repeats. Each
reminder fires when it should, at most once per turn, and never for conversation or honest answers."""

from __future__ import annotations

import json
from typing import Any

from axon_cli.agent.guidance.repeats import ALREADY_HAVE
from tests.fakeserver import text_reply, tool_reply


def without_attached_files(project) -> None:  # type: ignore[no-untyped-def]
    """Guidance without its ``attach`` part: the files a task names stay unseen until read."""
    (project / ".axon").mkdir(exist_ok=True)
    (project / ".axon" / "config.toml").write_text('guidance_parts = ["constrain", "whole_file"]\n')

def events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def notices(stdout: str) -> list[str]:
    return [e["message"] for e in events(stdout) if e["type"] == "notice"]


def test_an_unread_file_is_read_before_the_answer(server, run_axon, project):
    without_attached_files(project)     # the reminder for a file the model has not seen
    (project / "VERSION").write_text("2.7.1\n")
    server.add(text_reply("The version is 1.0."), tool_reply(("read_file", {"path": "VERSION"})),
               text_reply("The version is 2.7.1."))
    r = run_axon("run", "what version is in VERSION?", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    reminder = server.requests[1].messages[-1]
    assert reminder["role"] == "user" and reminder["content"].startswith("Look before you answer")
    assert 'call read_file with {"path": "VERSION"}' in reminder["content"]
    assert any("reminded it to read VERSION first" in n for n in notices(r.stdout))
    assert events(r.stdout)[-1]["result"] == "The version is 2.7.1."


def test_the_look_first_reminder_comes_once_and_as_a_text_call_for_text_models(server, run_axon, project):
    without_attached_files(project)     # the reminder for a file the model has not seen
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    server.add(text_reply("It adds."), text_reply("It adds two numbers."), text_reply("unused"))
    r = run_axon("run", "what does calc.py do?", "--tool-protocol", "text")
    assert r.code == 0, r.stderr
    assert len(server.requests) == 2 and r.stdout == "It adds two numbers.\n"
    assert '<tool_call>\n{"name": "read_file", "arguments": {"path": "calc.py"}}\n</tool_call>' in \
        server.requests[1].messages[-1]["content"]


def test_conversation_is_answered_without_reminders(server, run_axon, project):
    (project / "notes.md").write_text("x\n")
    for task, answer in [("hi", "Hello! How can I help?"), ("what is a monad?", "A monad is a pattern...")]:
        server.add(text_reply(answer), text_reply("unused"))
        n = len(server.requests)
        r = run_axon("run", task, "--output-format", "stream-json")
        assert r.code == 0, r.stderr
        assert len(server.requests) == n + 1 and events(r.stdout)[-1]["result"] == answer
        server.script.clear()


def test_claimed_work_is_sent_back_once_and_real_work_is_accepted(server, run_axon, project):
    server.add(text_reply("I have created hello.txt with hello."),
               tool_reply(("write_file", {"path": "hello.txt", "content": "hello\n"})),
               text_reply("I have created hello.txt with hello."), text_reply("unused"))
    r = run_axon("run", "create hello.txt containing hello", "--yes", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    assert (project / "hello.txt").read_text() == "hello\n"
    assert server.requests[1].messages[-1]["content"].startswith("Nothing has been changed or run yet")
    assert len(server.requests) == 3          # the honest claim after the write is the answer
    assert sum("claimed work" in n for n in notices(r.stdout)) == 1


def test_a_repeated_false_claim_is_reminded_only_once(server, run_axon, project):
    server.add(text_reply("Done: I ran the tests and all tests passed."),
               text_reply("Done: I ran the tests and all tests passed."), text_reply("unused"))
    r = run_axon("run", "run the tests")
    assert r.code == 0, r.stderr
    assert len(server.requests) == 2
    assert "Nothing has been changed or run yet" in server.requests[1].messages[-1]["content"]


def test_a_step_handed_to_the_user_is_sent_back(server, run_axon, project):
    server.add(text_reply("Use the following command:\n```\nrm -rf build\n```"),
               tool_reply(("bash", {"command": "rm -rf build"})), text_reply("I removed build/."))
    r = run_axon("run", "clean up the build output", "--yes")
    assert r.code == 0, r.stderr
    assert server.requests[1].messages[-1]["content"].startswith("The user cannot call your tools")
    assert r.stdout == "I removed build/.\n"


def test_an_identical_read_is_refused_from_the_third_time_and_the_run_stops(server, run_axon, project):
    (project / "a.txt").write_text("A\n")
    server.add(*[tool_reply(("read_file", {"path": "a.txt"}))] * 6, text_reply("unused"))
    r = run_axon("run", "look at a.txt", "--output-format", "stream-json")
    assert r.code == 1
    ends = [e for e in events(r.stdout) if e["type"] == "tool_call_end"]
    assert len(ends) == 5 and len(server.requests) == 5
    assert [ALREADY_HAVE.format(name="read_file", n=2) == e["output"] for e in ends] == [False, False,
                                                                                       True, True, True]
    assert "repeating the same calls" in events(r.stdout)[-1]["result"]
    server.script.clear()
    server.add(*[tool_reply(("read_file", {"path": "a.txt"}))] * 6)
    r = run_axon("run", "look at a.txt")            # the text output: one line on stderr
    assert r.code == 1 and "repeating the same calls" in r.stderr and "Traceback" not in r.stderr


def test_a_change_in_between_makes_a_read_fair_again(server, run_axon, project):
    (project / "a.txt").write_text("A\n")
    read = tool_reply(("read_file", {"path": "a.txt"}))
    server.add(read, read, tool_reply(("bash", {"command": "echo B >> a.txt"})), read, read,
               text_reply("a.txt now has A and B."))
    r = run_axon("run", "append B to a.txt", "--yes", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    outputs = [e["output"] for e in events(r.stdout) if e["type"] == "tool_call_end"]
    assert len(outputs) == 5 and not any("already have this result" in o for o in outputs)


def test_once_per_turn_means_a_new_turn_may_be_reminded_again(server, run_axon, project):
    claim = text_reply("I have deleted the cache.")
    server.add(claim, claim, claim)       # a claim, then still nothing changed, then accepted
    r = run_axon("run", "delete the cache")
    assert r.code == 0, r.stderr
    server.add(claim, claim, claim)
    r = run_axon("run", "delete the cache, really", "--continue")
    assert r.code == 0, r.stderr
    reminded = [q for q in server.requests if q.messages[-1]["content"].startswith("Nothing has been changed")]
    unfinished = [q for q in server.requests if q.messages[-1]["content"].startswith("Not done yet")]
    assert len(server.requests) == 6 and len(reminded) == 2 and len(unfinished) == 2


def test_a_change_to_the_wrong_place_is_sent_back_and_a_shown_edit_is_made(server, run_axon, project):
    # what a 1.5B model did: ran an unrelated command, answered; then showed the right edit among prose
    (project / "app").mkdir()
    (project / "app" / "limits.py").write_text("MAX_RETRIES = 3\nTIMEOUT_S = 20\n")
    fence = "```json\n{}\n```"
    edit = {"name": "edit_file", "arguments": {"path": "app/limits.py", "old_string": "MAX_RETRIES = 3",
                                               "new_string": "MAX_RETRIES = 12"}}
    server.add(text_reply(fence.format(json.dumps({"name": "bash", "arguments": {"command": "touch other.txt"}}))),
               text_reply("The value of MAX_RETRIES is 12."),
               text_reply(fence.format(json.dumps({"name": "read_file", "arguments": {"path": "app/limits.py"}}))),
               text_reply("It is 3 now. To set it to 12, edit the file:\n" + fence.format(json.dumps(edit))
                          + "\nAfter this it is 12."),
               text_reply("MAX_RETRIES is now 12 in app/limits.py."), text_reply("unused"))
    r = run_axon("run", "Set MAX_RETRIES in app/limits.py to 12.", "--yes", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    reminder = server.requests[2].messages[-1]["content"]
    assert reminder.startswith("Not done yet: app/limits.py has not changed, but the task asks you to set it")
    assert (project / "app" / "limits.py").read_text() == "MAX_RETRIES = 12\nTIMEOUT_S = 20\n"
    assert events(r.stdout)[-1]["result"] == "MAX_RETRIES is now 12 in app/limits.py."
    assert len(server.requests) == 5


def test_a_file_emptied_instead_of_deleted_gets_the_rm_step(server, run_axon, project):
    (project / "old_notes.txt").write_text("meeting moved to room 4\n")
    server.add(tool_reply(("read_file", {"path": "old_notes.txt"})),
               tool_reply(("write_file", {"path": "old_notes.txt", "content": ""})),
               text_reply("The file old_notes.txt has been deleted."),
               tool_reply(("bash", {"command": "rm old_notes.txt"})), text_reply("Deleted old_notes.txt."),
               text_reply("unused"))
    r = run_axon("run", "Delete the file old_notes.txt; it is no longer needed.", "--yes")
    assert r.code == 0, r.stderr
    reminder = server.requests[3].messages[-1]["content"]
    assert reminder.startswith("Not done yet: old_notes.txt still exists, but the task asks you to delete it")
    assert 'call bash with {"command": "rm old_notes.txt"}' in reminder
    assert not (project / "old_notes.txt").exists() and r.stdout == "Deleted old_notes.txt.\n"


def test_a_value_that_no_result_shows_is_checked_once(server, run_axon, project):
    (project / "service").mkdir()
    (project / "service" / "settings.ini").write_text("[net]\ntimeout_ms = 7341\n")
    server.add(tool_reply(("bash", {"command": "grep timeout_ms service/settings.ini | awk '{print $2}'"})),
               text_reply("timeout_ms is 120."),
               tool_reply(("read_file", {"path": "service/settings.ini"})),
               text_reply("timeout_ms is 7341."), text_reply("unused"))
    r = run_axon("run", "What is timeout_ms set to in service/settings.ini?", "--yes", "--output-format",
                 "stream-json")
    assert r.code == 0, r.stderr
    assert server.requests[2].messages[-1]["content"].startswith("Check your answer: it says 120")
    assert events(r.stdout)[-1]["result"] == "timeout_ms is 7341." and len(server.requests) == 4
