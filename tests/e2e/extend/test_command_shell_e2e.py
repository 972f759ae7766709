"""End-to-end: a command's ``!`cmd` `` lines run before its prompt is sent, through the same
permission path as a model's bash call, in the real ``axon`` against the scripted server: a
destructive one asks in the chat and is refused by ``axon run`` (nothing is sent, the file stays),
one outside ``allowed-tools``' Bash or in an untrusted folder never runs."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.ui.test_repl import Chat
from tests.fakeserver import text_reply

TRUSTED = {"AXON_TRUST": "1"}
NO_SANDBOX = ("--sandbox", "off")
WIPE = "---\nallowed-tools: Bash(git status:*)\ndescription: Wipe the victim\n---\nBefore: !`rm -f victim.txt`\nGo.\n"


def command(project: Path, name: str, text: str) -> None:
    folder = project / ".claude" / "commands"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(text)


def test_a_destructive_shell_line_is_refused_headless_and_nothing_is_sent(server, run_axon, project):
    command(project, "wipe", WIPE)
    (project / "victim.txt").write_text("precious\n")
    ran = run_axon("run", "--command", "wipe", *NO_SANDBOX, env=TRUSTED)
    assert ran.code != 0
    assert ".claude/commands/wipe.md" in ran.stderr and "!`rm -f victim.txt` was not run" in ran.stderr
    assert (project / "victim.txt").read_text() == "precious\n"
    assert server.requests == []
    server.add(text_reply("wiped"))
    ran = run_axon("run", "--command", "wipe", "--yes", *NO_SANDBOX, env=TRUSTED)   # approved: it runs
    assert ran.code == 0, ran.stderr
    assert not (project / "victim.txt").exists()
    assert server.requests[0].conversation[-1]["content"] == "Before: \nGo."


def test_a_shell_line_without_bash_in_allowed_tools_or_in_an_untrusted_folder_never_runs(server, run_axon, project):
    command(project, "nobash", "---\nallowed-tools: Read\n---\nNow: !`touch canary-a`\n")
    command(project, "untrusted", "---\nallowed-tools: Bash(touch:*)\n---\nNow: !`touch canary-b`\n")
    ran = run_axon("run", "--command", "nobash", "--yes", *NO_SANDBOX, env=TRUSTED)
    assert ran.code != 0 and "allowed-tools name Bash" in ran.stderr
    ran = run_axon("run", "--command", "untrusted", "--yes", *NO_SANDBOX)
    assert ran.code != 0 and "until this folder is trusted" in ran.stderr
    assert not (project / "canary-a").exists() and not (project / "canary-b").exists()
    assert server.requests == []


def test_a_deny_rule_beats_the_commands_allowed_tools(server, run_axon, project):
    (project / ".axon").mkdir()
    (project / ".axon" / "permissions.toml").write_text('deny = ["bash(touch *)"]\n')
    command(project, "make", "---\nallowed-tools: Bash(touch:*)\n---\nNow: !`touch made.txt`\n")
    ran = run_axon("run", "--command", "make", "--yes", *NO_SANDBOX, env=TRUSTED)
    assert ran.code != 0 and "!`touch made.txt` was not run" in ran.stderr
    assert not (project / "made.txt").exists() and server.requests == []


def test_in_the_chat_a_destructive_shell_line_asks_first(server, project, axon_env):
    command(project, "wipe", WIPE)
    (project / "victim.txt").write_text("precious\n")
    server.add(text_reply("wiped it"))
    c = Chat(project, {**axon_env, **TRUSTED}, *NO_SANDBOX)
    try:
        c.prompt()
        c.say("/wipe")
        c.expect("allow bash?")
        c.send("n")
        c.expect("was not run")
        assert (project / "victim.txt").exists() and server.requests == []
        c.prompt()
        c.say("/wipe")
        c.expect("allow bash?")
        c.send("y")
        c.expect("wiped it")
        assert not (project / "victim.txt").exists()
        assert server.requests[0].conversation[-1]["content"] == "Before: \nGo."
        c.exit()
    finally:
        if c.child.isalive():
            c.child.terminate(force=True)
    assert "Traceback" not in c.raw
