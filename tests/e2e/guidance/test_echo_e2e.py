"""axon's own notes to the model never become the run's result: through the real ``axon run`` and the
scripted server, a model that answers with the note axon just sent ("The call failed: do not answer
yet; …", a reminder) is asked once to answer, and a second echo stops the run as an error; a run
that ends at the turn limit right after a note reports the limit, not the note."""

from __future__ import annotations

import json

from axon_cli.agent.guidance.reminders import GROUND
from axon_cli.agent.loop.echo import ECHOED, ECHOED_AGAIN
from axon_cli.agent.protocols.builtin import FIX_STEP
from tests.fakeserver import text_reply

FAILING_CALL = '<tool_call>\n{"name": "read_file", "arguments": {"path": "absent.txt"}}\n</tool_call>'



def without_attached_files(project) -> None:  # type: ignore[no-untyped-def]
    """Guidance without its ``attach`` part: the files a task names stay unseen until read."""
    (project / ".axon").mkdir(exist_ok=True)
    (project / ".axon" / "config.toml").write_text('guidance_parts = ["constrain", "whole_file"]\n')

def result_of(stdout: str) -> dict:
    return json.loads(stdout)


def test_an_echoed_failure_note_is_sent_back_and_a_second_echo_stops(server, run_axon, project):
    server.add(text_reply(FAILING_CALL), text_reply(FIX_STEP), text_reply(FIX_STEP), text_reply("unused"))
    r = run_axon("run", "show me absent.txt", "--tool-protocol", "text", "--output-format", "json")
    out = result_of(r.stdout)
    assert FIX_STEP in server.requests[1].messages[-1]["content"]     # axon sent the note after the failure
    assert server.requests[2].messages[-1]["content"] == ECHOED       # the echo was sent back once
    assert len(server.requests) == 3
    assert out["result"] == ECHOED_AGAIN and out["is_error"] is True and r.code == 1
    assert FIX_STEP not in out["result"]


def test_after_one_echo_a_real_answer_is_the_result(server, run_axon, project):
    server.add(text_reply(FAILING_CALL), text_reply("  " + FIX_STEP.upper() + "  "),
               text_reply("absent.txt does not exist in this project."))
    r = run_axon("run", "show me absent.txt", "--tool-protocol", "text", "--output-format", "json")
    assert r.code == 0, r.stderr
    assert result_of(r.stdout)["result"] == "absent.txt does not exist in this project."


def test_an_echoed_guidance_reminder_is_not_the_answer(server, run_axon, project):
    without_attached_files(project)     # the reminder for a file the model has not seen
    (project / "notes.md").write_text("alpha\n")
    reminder = GROUND.split("\n")[0].format(path="notes.md")     # the reminder's first line, word for word
    server.add(text_reply("It is empty."), text_reply(reminder), text_reply(reminder), text_reply("unused"))
    r = run_axon("run", "what is in notes.md?", "--output-format", "json")
    assert server.requests[1].messages[-1]["content"].startswith(reminder)   # the look-first reminder
    out = result_of(r.stdout)
    assert out["result"] == ECHOED_AGAIN and "Look before you answer" not in out["result"]


def test_the_turn_limit_right_after_a_note_reports_the_limit(server, run_axon, project):
    server.add(text_reply(FAILING_CALL), text_reply(FAILING_CALL.replace("absent", "gone")), text_reply("unused"))
    r = run_axon("run", "show me absent.txt", "--tool-protocol", "text", "--max-turns", "2",
                 "--output-format", "json")
    out = result_of(r.stdout)
    assert FIX_STEP in server.requests[1].messages[-1]["content"]
    assert r.code == 3 and out["result"] == "stopped: reached the limit of 2 turns"


def test_a_short_answer_that_shares_words_with_a_note_is_taken(server, run_axon, project):
    server.add(text_reply(FAILING_CALL), text_reply("The call failed because absent.txt is not in the project."))
    r = run_axon("run", "show me absent.txt", "--tool-protocol", "text", "--output-format", "json")
    assert r.code == 0, r.stderr
    assert result_of(r.stdout)["result"] == "The call failed because absent.txt is not in the project."
