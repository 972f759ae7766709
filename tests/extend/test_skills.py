"""Skills in process: the SKILL.md front matter reader on the YAML shapes real skills use, and the
skill list's budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from axon_cli.kernel.prompts.frontmatter import FrontMatterError, read_front_matter
from axon_cli.session.extend.skill_grants import claude_rule
from axon_cli.session.extend.skill_tool import skill_list
from axon_cli.session.extend.skills import Skill, _tool_list


def test_block_scalars_nested_maps_lists_and_quotes():
    fields, body = read_front_matter(
        "---\nname: build-slice\nallowed-tools: Read, Grep, Bash\ndescription: >\n  Run after a spec exists.\n"
        "  Implements one criterion.\n\n  Second paragraph.\nnotes: |\n  line one\n  line two\nmetadata:\n"
        "  short-description: Fix CI\n  version: \"1.0\"\ntags: [a, 'b c']\nsteps:\n  - one\n  - two\n"
        'quoted: "say \\"hi\\"\\n"\nplain: folded\n  over lines\n---\n# Body\n')
    assert fields["description"] == "Run after a spec exists. Implements one criterion.\nSecond paragraph."
    assert fields["notes"] == "line one\nline two"
    assert fields["metadata"] == {"short-description": "Fix CI", "version": "1.0"}
    assert fields["tags"] == ["a", "b c"] and fields["steps"] == ["one", "two"]
    assert fields["quoted"] == 'say "hi"\n' and fields["plain"] == "folded over lines"
    assert fields["allowed_tools"] == "Read, Grep, Bash" and body == "# Body"


@pytest.mark.parametrize("text", ["# no front matter\n", "---\nname: x\n", "---\n  indented: x\n---\n",
                                  '---\ndescription: "open\n---\n', "---\njust words\n---\n"])
def test_unreadable_front_matter_is_an_error_naming_the_problem(text):
    with pytest.raises(FrontMatterError):
        read_front_matter(text)


def test_allowed_tools_in_both_spellings_and_claude_rules():
    assert _tool_list("Bash(git add:*), Read") == ["Bash(git add:*)", "Read"]
    assert _tool_list("Bash(python3:*) Read Write") == ["Bash(python3:*)", "Read", "Write"]
    assert _tool_list(["Read", "Grep"]) == ["Read", "Grep"]
    assert claude_rule("Bash(git add:*)") == "bash(git add *)"
    assert claude_rule("Read") == "read_file" and claude_rule("Edit(src/**)") == "edit_file(src/**)"
    assert claude_rule("mcp__time") == "mcp__time"


def test_the_skill_list_keeps_within_its_budget():
    skills = [Skill(f"s{n}", "x " * 500, Path("/s"), "s", "") for n in range(100)]
    listed = skill_list(skills, budget=4000)
    assert len(listed) <= 4000 and "more skills (not listed" in listed
    assert skill_list(skills[:2]) == "\n".join(f"- s{n}: {'x ' * 500}" for n in range(2))
