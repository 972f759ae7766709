"""Unit: Claude Code's tool names, ``allowed-tools`` entries and model aliases in axon's terms
(session/extend/claude_rules.py), checked against axon's own rule matcher."""

from __future__ import annotations

import pytest

from axon_cli.policy.rules import bash_match, parse_rule
from axon_cli.session.extend.claude_rules import entries_of, rule_of, session_model, tool_of


@pytest.mark.parametrize("value, expected", [
    ("Bash(git add:*), Bash(git status:*)", ["Bash(git add:*)", "Bash(git status:*)"]),
    ("Read Grep Glob", ["Read", "Grep", "Glob"]),
    ("Bash(git add:*) Bash(npm run test)", ["Bash(git add:*)", "Bash(npm run test)"]),
    (["Read", "Bash(git log:*)"], ["Read", "Bash(git log:*)"]),
    ("bash(git diff *), read_file", ["bash(git diff *)", "read_file"]),
    ("", []), (None, []), (True, []),
])
def test_entries(value, expected):
    assert entries_of(value) == expected


@pytest.mark.parametrize("entry, rule", [
    ("Bash", "bash"), ("Bash(git add:*)", "bash(git add *)"), ("Bash(git status)", "bash(git status)"),
    ("Bash(npm run test:*)", "bash(npm run test *)"), ("Bash(:*)", "bash"),
    ("Read", "read_file"), ("Edit", "edit_file"), ("MultiEdit", "edit_file"), ("Write", "write_file"),
    ("Glob", "list_files"), ("LS", "list_files"), ("Grep", "search_files"), ("WebFetch", "web_fetch"),
    ("TodoWrite", "todo_write"), ("Task", "task"),
    ("Read(./src/**)", "read_file(src/**)"), ("Edit(/docs/**)", "edit_file(docs/**)"),
    ("Read(//etc/hosts)", "read_file(/etc/hosts)"), ("Read(~/notes/*)", "read_file(~/notes/*)"),
    ("mcp__time", "mcp__time"), ("mcp__time__get_current_time", "mcp__time__get_current_time"),
    ("bash(make *)", "bash(make *)"), ("my_tool", "my_tool"),
    ("KillShell", "kill_shell"), ("BashOutput", "bash_output"), ("NotebookEdit", None), ("SlashCommand", None),
])
def test_rule_of(entry, rule):
    assert rule_of(entry) == rule
    if rule is not None:
        assert parse_rule(rule, "allow", "x.md").text == rule


def test_a_prefix_rule_covers_the_command_and_its_arguments_but_not_a_longer_word():
    pattern = parse_rule(rule_of("Bash(git add:*)"), "allow", "x").pattern
    assert pattern is not None
    assert bash_match(pattern, ["git", "add"]) and bash_match(pattern, ["git", "add", "."])
    assert not bash_match(pattern, ["git", "addendum"]) and not bash_match(pattern, ["rm", "-rf", "/"])
    exact = parse_rule(rule_of("Bash(git status)"), "allow", "x").pattern
    assert exact is not None and bash_match(exact, ["git", "status"]) and not bash_match(exact, ["git", "status", "-s"])


def test_tool_of_and_models():
    assert [tool_of(e) for e in ("Read", "Bash(git log:*)", "TaskList", "mcp__x__y")] == \
        ["read_file", "bash", None, "mcp__x__y"]
    assert [session_model(m) for m in ("inherit", "sonnet", "Opus", "haiku", "", None)] == [None] * 6
    assert session_model("claude-sonnet-4-0") == "claude-sonnet-4-0" and session_model("gpt-4o") == "gpt-4o"
