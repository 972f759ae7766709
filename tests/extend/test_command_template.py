"""Unit: custom command files — front matter, ``$ARGUMENTS``/``$1…$9``, ``@path`` (session/extend/commands.py)."""

from __future__ import annotations

import pytest

from axon_cli.kernel.prompts.frontmatter import FrontMatterError, as_list, split_front_matter
from axon_cli.kernel.turn import Attachment, UserTurn
from axon_cli.session.extend.commands import (
    CustomCommand,
    expand_command,
    load_commands,
    substitute,
)
from axon_cli.settings.trust import TrustEverything, TrustNothing


@pytest.mark.parametrize("template, arguments, expected", [
    ("Review $ARGUMENTS.", "src/a.py src/b.py", "Review src/a.py src/b.py."),
    ("Compare $1 with $2; ignore $3.", 'a.py "my file.py"', "Compare a.py with my file.py; ignore ."),
    ("Fix $1 then $1 again", "x", "Fix x then x again"),
    ("Summarise the repo.", "briefly", "Summarise the repo.\n\nArguments: briefly"),
    ("Summarise the repo.", "", "Summarise the repo."),
    ("Use $ARGUMENTS", "costs $1 and $ARGUMENTS", "Use costs $1 and $ARGUMENTS"),   # substituted once
    ("Open $1", 'unbalanced "quote', "Open unbalanced"),
])
def test_substitute(template, arguments, expected):
    assert substitute(template, arguments) == expected


def test_front_matter_forms():
    fields, body = split_front_matter(
        "---\ndescription: Review a file  # shown by /help\nallowed-tools: bash(git diff *), read_file\n"
        "model: \"gpt-4o\"\nmax_turns: 7\nflag: true\ntools:\n  - read_file\n  - 'search_files'\n---\n\nBody $1\n")
    assert fields == {"description": "Review a file", "allowed_tools": "bash(git diff *), read_file",
                      "model": "gpt-4o", "max_turns": 7, "flag": True, "tools": ["read_file", "search_files"]}
    assert body == "Body $1"
    assert as_list(fields["allowed_tools"]) == ["bash(git diff *)", "read_file"]
    assert as_list(split_front_matter('---\nx: ["a, b", c]\n---\n')[0]["x"]) == ["a, b", "c"]
    assert split_front_matter("no front matter\n---\n") == ({}, "no front matter\n---\n")
    with pytest.raises(FrontMatterError, match="never closed"):
        split_front_matter("---\ndescription: x\n")
    with pytest.raises(FrontMatterError, match="line 2: expected 'key: value'"):
        split_front_matter("---\njust words\n---\n")


def test_at_path_attaches_a_project_file_but_never_a_sensitive_one(tmp_path):
    (tmp_path / "a.py").write_text("print('a')\n")
    (tmp_path / ".env").write_text("TOKEN=abc\n")
    command = CustomCommand("explain", "Explain @$1 and @.env and @../outside.txt", "x.md")
    turn, notes = expand_command(command, "a.py", tmp_path)
    assert turn == UserTurn("Explain @a.py and @.env and @../outside.txt", (Attachment("a.py", "print('a')\n"),))
    message = turn.render()
    assert message.startswith("Explain @a.py and @.env")
    assert "<file path=\"a.py\">\nprint('a')\n" in message and "TOKEN" not in message
    assert notes == ["attached a.py", "@.env: a sensitive file, not attached"]


def test_loading_commands_problems_and_trust(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    folder = tmp_path / ".axon" / "commands"
    folder.mkdir(parents=True)
    (folder / "ok.md").write_text("---\ndescription: fine\nargument_hint: FILE\ncolour: red\n---\nDo $1\n")
    (folder / "grant.md").write_text("---\nallowed_tools: [\"bash(make *)\"]\n---\nBuild\n")
    (folder / "badrule.md").write_text("---\nallowed_tools: [\"bash(\"]\n---\nBuild\n")
    (folder / "open.md").write_text("---\ndescription: x\n")
    untrusted = load_commands(tmp_path, TrustNothing())
    assert sorted(untrusted.commands) == ["ok"]
    assert untrusted.commands["ok"].description == "fine" and untrusted.commands["ok"].argument_hint == "FILE"
    assert untrusted.waiting == [".axon/commands/grant.md"]
    assert any("unknown front matter key 'colour'" in p for p in untrusted.problems)
    assert any(p.startswith(".axon/commands/badrule.md:") and "skipped" in p for p in untrusted.problems)
    assert any(p.startswith(".axon/commands/open.md:") and "never closed" in p for p in untrusted.problems)
    assert "trusted" in untrusted.unloaded["grant"] and "broken" in untrusted.unloaded["open"]
    trusted = load_commands(tmp_path, TrustEverything())
    assert trusted.commands["grant"].allowed_tools == ("bash(make *)",) and not trusted.waiting
