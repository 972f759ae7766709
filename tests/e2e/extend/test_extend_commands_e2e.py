"""End-to-end: custom commands (``.axon/commands/NAME.md``) as ``/NAME args`` in the real ``axon chat``
(in a pseudo-terminal) and as ``axon run --command NAME args``, against the scripted server."""

from __future__ import annotations

import time
from pathlib import Path

from axon_cli.kernel.turn import UserTurn
from tests.fakeserver import text_reply, tool_reply

REVIEW = """---
description: Review a file for bugs
argument-hint: FILE
---
Review $ARGUMENTS for bugs. Start with $1 and read it first.
"""


def command(project: Path, name: str, text: str) -> None:
    folder = project / ".axon" / "commands"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(text)


def test_slash_review_expands_the_project_command_in_the_repl(chat, server, project):  # noqa: F811
    command(project, "review", REVIEW)
    server.add(text_reply("reviewed: no bugs"))
    c = chat()
    c.say("/help")
    c.expect("Custom commands")
    c.expect("Review a file for bugs")
    c.expect(".axon/commands/review.md")
    c.send("/rev")
    c.expect("Review a file for bugs")   # the completion menu offers the custom command
    c.send("\t")                        # Tab completes it
    deadline = time.monotonic() + 15
    while not any(line.startswith("› /review") for line in c.screen()):
        assert time.monotonic() < deadline, "\n".join(c.screen())
        c._pump()
    c.send(" src/a.py\r")
    c.expect("reviewed: no bugs")
    c.exit()
    assert server.requests[0].conversation[-1] == {
        "role": "user", "content": "Review src/a.py for bugs. Start with src/a.py and read it first."}


def test_run_command_expands_arguments_and_attaches_files_but_never_secrets(server, run_axon, project):
    command(project, "review", REVIEW)
    command(project, "explain", "Explain @$1 and @.env in one line.\n")
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("def add(a, b):\n    return a - b\n")
    (project / ".env").write_text("OPENAI_API_KEY=sk-live-secret-value-123456789\n")
    server.add(tool_reply(("read_file", {"path": "src/a.py"})), text_reply("no bugs"), text_reply("it subtracts"))
    ran = run_axon("run", "--command", "review", "src/a.py")
    assert ran.code == 0, ran.stderr
    assert ran.stdout.strip() == "no bugs"
    assert UserTurn.from_message(server.requests[0].conversation[-1]["content"]).text == (
        "Review src/a.py for bugs. Start with src/a.py and read it first.")
    ran = run_axon("run", "--command", "explain", "src/a.py")
    assert ran.code == 0, ran.stderr
    sent = server.requests[2].conversation[-1]["content"]
    assert sent.startswith("Explain @src/a.py and @.env in one line.")
    assert '<file path="src/a.py">\ndef add(a, b):\n    return a - b\n' in sent
    assert "sk-live-secret" not in sent and '<file path=".env">' not in sent
    assert "@.env: a sensitive file, not attached" in ran.stderr


def test_unknown_command_is_a_usage_error_listing_the_known_ones(run_axon, project):
    command(project, "review", REVIEW)
    ran = run_axon("run", "--command", "reveiw", "x")
    assert ran.code == 2
    assert ran.stderr.strip() == "axon: error: unknown command 'reveiw'; the custom commands are: review"


def test_allowed_tools_run_unasked_for_that_turn_only(server, run_axon, project):
    command(project, "touch", "---\nallowed_tools: [\"bash(touch *)\"]\nmodel: command-model\n---\nCreate $1.\n")
    server.add(tool_reply(("bash", {"command": "touch made.txt"})), text_reply("made it"),
               tool_reply(("bash", {"command": "touch again.txt"})), text_reply("not allowed"))
    unsandboxed = ("--sandbox", "off")            # without it touch would run as "sandboxed, undoable"
    ran = run_axon("run", "--command", "touch", "made.txt", *unsandboxed, env={"AXON_TRUST": "1"})
    assert ran.code == 0, ran.stderr
    assert (project / "made.txt").exists()
    assert server.requests[0].body["model"] == "command-model"
    ran = run_axon("run", "touch again.txt", *unsandboxed, env={"AXON_TRUST": "1"})   # no command: the rule is gone
    assert not (project / "again.txt").exists()
    assert server.requests[2].body["model"] == "test-model"
    assert "Permission denied" in server.requests[3].messages[-1]["content"]


def test_user_commands_load_and_a_project_command_of_the_same_name_wins(server, run_axon, project, axon_env):
    user = Path(axon_env["XDG_CONFIG_HOME"]) / "axon" / "commands"
    user.mkdir(parents=True)
    (user / "hello.md").write_text("Say hello to $ARGUMENTS.\n")
    (user / "greet.md").write_text("User greeting for $ARGUMENTS.\n")
    command(project, "greet", "Project greeting for $ARGUMENTS.\n")
    server.add(text_reply("hi"), text_reply("hello"))
    assert run_axon("run", "--command", "hello", "Ada").code == 0
    assert run_axon("run", "--command", "greet", "Ada").code == 0
    assert server.requests[0].conversation[-1]["content"] == "Say hello to Ada."
    assert server.requests[1].conversation[-1]["content"] == "Project greeting for Ada."
