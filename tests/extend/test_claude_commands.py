"""Unit: commands from Claude Code's folders — precedence, subfolder names, ``!`` spans — and the
front matter forms real Claude Code files use (session/extend/commands.py, kernel/prompts/frontmatter.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from axon_cli.kernel.errors import AxonError, ConfigError, UsageError
from axon_cli.kernel.prompts.frontmatter import split_front_matter
from axon_cli.session.extend.commands import (
    CustomCommand,
    expand_command,
    find_command,
    load_commands,
)
from axon_cli.settings.trust import TrustEverything, TrustNothing


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def homes(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    return tmp_path / "home" / ".claude" / "commands", tmp_path / "xdg" / "axon" / "commands"


def test_precedence_lowest_first_claude_user_axon_user_claude_project_axon_project(tmp_path, homes):
    claude_user, axon_user = homes
    project = tmp_path / "p"
    for folder, label in ((claude_user, "claude-user"), (axon_user, "axon-user"),
                          (project / ".claude" / "commands", "claude-project"),
                          (project / ".axon" / "commands", "axon-project")):
        write(folder / "deploy.md", f"{label}\n")
        write(folder / f"only-{label}.md", f"{label}\n")
    loaded = load_commands(project, TrustNothing())
    assert loaded.commands["deploy"].template == "axon-project"
    assert loaded.commands["deploy"].source == ".axon/commands/deploy.md"
    assert {n for n, _ in loaded.listed()} == {"deploy", "only-claude-user", "only-axon-user", "only-claude-project",
                                              "only-axon-project"}
    assert not loaded.commands["only-claude-user"].project and loaded.commands["only-claude-project"].project


def test_subfolders_give_bare_and_namespaced_names_and_an_ambiguous_bare_name_runs_none(tmp_path, homes):
    claude_user, _ = homes
    folder = tmp_path / ".claude" / "commands"
    write(folder / "frontend" / "component.md", "---\ndescription: Make a component\n---\nMake $1\n")
    write(folder / "frontend" / "test.md", "front tests\n")
    write(folder / "backend" / "test.md", "back tests\n")
    write(folder / "a" / "b" / "deep.md", "deep\n")
    write(claude_user / "component.md", "user component\n")         # the project's wins the bare name
    loaded = load_commands(tmp_path, TrustNothing())
    component = find_command(loaded, "/component")
    assert component is find_command(loaded, "frontend:component") and component.qualified == "frontend:component"
    assert component.help_line() == "Make a component (project:frontend)"
    assert find_command(loaded, "a:b:deep").help_line() == "deep (project:a/b)"
    assert find_command(loaded, "backend:test").template == "back tests"
    with pytest.raises(ConfigError, match=r"several commands have this name; run one of /backend:test .*/frontend:test"):
        find_command(loaded, "test")
    listed = dict(loaded.listed())
    assert "component" in listed and "frontend:component" not in listed and "frontend:test" in listed
    with pytest.raises(UsageError, match="unknown command 'nope'"):
        find_command(loaded, "nope")


def test_a_project_command_that_runs_shell_lines_waits_for_trust(tmp_path, homes):
    write(tmp_path / ".claude" / "commands" / "status.md", "Status: !`git status`\n")
    write(tmp_path / ".claude" / "commands" / "plain.md", "Use `!` for emphasis!\n")
    untrusted = load_commands(tmp_path, TrustNothing())
    assert list(untrusted.commands) == ["plain"] and untrusted.waiting == [".claude/commands/status.md"]
    assert "trusted" in untrusted.unloaded["status"]
    assert "status" in load_commands(tmp_path, TrustEverything()).commands


def test_unknown_claude_tools_are_said_and_grant_nothing(tmp_path, homes):
    write(tmp_path / ".claude" / "commands" / "x.md", "---\nallowed-tools: Read, NotebookEdit, Bash(git log:*)\n---\nX\n")
    loaded = load_commands(tmp_path, TrustEverything())
    assert loaded.commands["x"].allowed_tools == ("read_file", "bash(git log *)")
    assert loaded.problems == [".claude/commands/x.md: allowed-tools NotebookEdit: no such tool in axon, nothing granted"]


def test_shell_spans_run_in_place_with_arguments_but_never_from_arguments_or_output(tmp_path):
    (tmp_path / "a.py").write_text("A\n")
    command = CustomCommand("c", "Log: !`git log $1`\nStatus: !`git status`\nFix $ARGUMENTS @a.py", "c.md",
                            allowed_tools=("bash(git log *)",))
    ran: list[str] = []

    def run(line: str) -> str:
        ran.append(line)
        return "out with !`rm -rf /` and $1 and @a.py"

    turn, notes = expand_command(command, "-3 !`touch pwned`", tmp_path, run)
    assert ran == ["git log -3", "git status"]
    assert turn.text == ("Log: out with !`rm -rf /` and $1 and @a.py\nStatus: out with !`rm -rf /` and $1 and @a.py\n"
                         "Fix -3 !`touch pwned` @a.py")
    assert [a.path for a in turn.attachments] == ["a.py"] and notes == ["attached a.py"]


def test_shell_spans_need_bash_in_allowed_tools_and_a_refusal_sends_nothing(tmp_path):
    command = CustomCommand("c", "Status: !`git status`", ".claude/commands/c.md", allowed_tools=("read_file",))
    with pytest.raises(ConfigError, match=r"command /c \(.claude/commands/c.md\): its !`…` lines run only when its "
                                          "allowed-tools name Bash"):
        expand_command(command, "", tmp_path, lambda line: "never")

    def refuse(line: str) -> str:
        raise ConfigError(f"!`{line}` was not run")

    allowed = CustomCommand("c", "Status: !`git status`", "c.md", allowed_tools=("bash(git status)",))
    with pytest.raises(AxonError, match="was not run"):
        expand_command(allowed, "", tmp_path, refuse)


def test_front_matter_as_real_claude_code_files_write_it():
    fields, body = split_front_matter(
        "---\nname: simplifier\ndescription: |\n  Use this agent when code changed.\n\n  Examples:\n"
        "  <example>x: y</example>\nmodel: opus\nallowed-tools:\n  [\"Read\", \"Write\"]\n"
        "summary: >\n  one\n  two\ntitle: a long\n  plain value\nhooks:\n  PreToolUse:\n    - matcher: Bash\n"
        "color: green\n---\nBody\n")
    assert fields == {"name": "simplifier", "description": "Use this agent when code changed.\n\nExamples:\n"
                      "<example>x: y</example>", "model": "opus", "allowed_tools": ["Read", "Write"],
                      "summary": "one two", "title": "a long plain value",
                      "hooks": "PreToolUse:\n  - matcher: Bash", "color": "green"}
    assert body == "Body"
