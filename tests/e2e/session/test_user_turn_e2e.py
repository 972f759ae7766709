"""End-to-end: the user's turn through the real ``axon run`` and the scripted server. The message the
model gets is byte for byte what it was when the turn travelled as one glued string (a plain task,
a custom command that attaches files, a resumed session); the answer guidance sees which files
were attached (no "look first" reminder for an attached file); ``axon sessions`` lists the user's
words, not the attached files."""

from __future__ import annotations

from pathlib import Path

from axon_cli.kernel.turn import UserTurn
from tests.fakeserver import text_reply

A_PY = "def add(a, b):\n    return a - b\n"
EXPLAIN_SENT = ("Explain @src/a.py, @src/b.txt and @.env in one line.\n\nAttached files:\n"
                '<file path="src/a.py">\ndef add(a, b):\n    return a - b\n\n</file>\n'
                '<file path="src/b.txt">\nbee\n\n</file>')


def project_files(project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text(A_PY)
    (project / "src" / "b.txt").write_text("bee\n")
    (project / ".env").write_text("OPENAI_API_KEY=sk-live-secret-value-123456789\n")
    commands = project / ".axon" / "commands"
    commands.mkdir(parents=True)
    (commands / "explain.md").write_text("Explain @$1, @src/b.txt and @.env in one line.\n")
    (commands / "ask.md").write_text("What does $1 do?\n")


def test_a_plain_task_is_sent_as_typed(server, run_axon, project):
    """``axon run`` sends the task as it is: an ``@path`` in it is the user's text (as before)."""
    project_files(project)
    server.add(text_reply("It subtracts."))
    ran = run_axon("run", "what does @src/a.py do?")
    assert ran.code == 0, ran.stderr
    sent = UserTurn.from_message(server.requests[0].conversation[-1]["content"])
    assert sent.text == "what does @src/a.py do?"      # the words as typed (guidance may attach src/a.py)


def test_a_command_turn_sends_the_same_bytes_and_a_resumed_session_keeps_them(server, run_axon, project):
    project_files(project)
    server.add(text_reply("It subtracts."), text_reply("Nothing else."))
    ran = run_axon("run", "--command", "explain", "src/a.py")
    assert ran.code == 0, ran.stderr
    assert server.requests[0].conversation[-1] == {"role": "user", "content": EXPLAIN_SENT}
    assert "@.env: a sensitive file, not attached" in ran.stderr
    ran = run_axon("run", "-c", "anything else?")
    assert ran.code == 0, ran.stderr
    assert server.requests[1].conversation[-3:] == [
        {"role": "user", "content": EXPLAIN_SENT}, {"role": "assistant", "content": "It subtracts."},
        {"role": "user", "content": "anything else?"}]
    listed = run_axon("sessions")
    assert listed.code == 0, listed.stderr
    row = listed.stdout.splitlines()[1]
    assert row.endswith("  Explain @src/a.py, @src/b.txt and @.env in one line."), listed.stdout


def test_guidance_sees_which_files_the_turn_attached(server, run_axon, project):
    """Answered without a tool call: an attached file was looked at (no reminder); the same
    question naming the file without attaching it gets the "look first" reminder."""
    project_files(project)
    server.add(text_reply("It subtracts b from a."), text_reply("unused"))
    ran = run_axon("run", "--command", "ask", "@src/a.py")
    assert ran.code == 0, ran.stderr
    assert len(server.requests) == 1 and ran.stdout == "It subtracts b from a.\n"
    server.script.clear()
    (project / ".axon" / "config.toml").write_text('guidance_parts = ["constrain", "whole_file"]\n')  # no attach
    server.add(text_reply("It subtracts b from a."), text_reply("It subtracts b from a (line 2)."))
    ran = run_axon("run", "--command", "ask", "src/a.py")
    assert ran.code == 0, ran.stderr
    assert len(server.requests) == 3, [r.conversation[-1] for r in server.requests]
    reminder = server.requests[2].conversation[-1]["content"]
    assert reminder.startswith("Look before you answer") and '{"path": "src/a.py"}' in reminder
