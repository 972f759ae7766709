"""The ``skill(name)`` tool: the model loads a skill's instructions when its task calls for them.

Its description lists each skill's name and description (``skills.py``), capped at
``LIST_BUDGET`` characters so many installed skills do not crowd the first request: past the
budget descriptions are shortened, then skills left out (the tool still loads them by name). The
result is the ``SKILL.md`` body, the skill folder's absolute path and the files beside it, so the
model reads them with ``read_file`` or runs its scripts with ``bash`` — calls the permission policy
judges like any other. Loading a skill changes nothing: the tool is read-only.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from axon_cli.session.extend.skills import Skill
from axon_cli.tools.spec import ToolContext, ToolError, ToolOutput, ToolSpec

__all__ = ["SkillInput", "skill_spec", "skill_list", "LIST_BUDGET", "MAX_LISTED_FILES"]

LIST_BUDGET = 8_000          # characters of the skill list in the tool description (Codex's default)
SHORT_LIMIT = 160            # a description's length once the list is over budget
MAX_LISTED_FILES = 60

DESCRIPTION = """Load a skill: instructions (and files: scripts, references, templates) for a kind of task.
When the task matches a skill's description below, call this first with the skill's name and follow
what it says. Paths in a skill are relative to its folder (given in the result): read those files
with read_file and run its scripts with bash when the instructions say so.
Skills:"""


class SkillInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=100, description="the skill's name, as listed")


def skill_list(skills: list[Skill], budget: int = LIST_BUDGET) -> str:
    """``- name: description`` lines within ``budget`` characters: full descriptions when they fit,
    shortened ones when not, and a count of the skills left out past that."""
    full = [f"- {s.name}: {s.description}" for s in skills]
    if sum(len(line) + 1 for line in full) <= budget:
        return "\n".join(full)
    lines: list[str] = []
    used = 0
    for s in skills:
        text = s.description if len(s.description) <= SHORT_LIMIT else s.description[:SHORT_LIMIT - 1] + "…"
        line = f"- {s.name}: {text}"
        if used + len(line) + 1 > budget - 80:
            lines.append(f"- … and {len(skills) - len(lines)} more skills (not listed; ask for one by name)")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


def _files(folder: Path) -> list[str]:
    """The skill's other files, relative to its folder (hidden ones and SKILL.md left out)."""
    found: list[str] = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("node_modules", "__pycache__"))
        for name in sorted(names):
            rel = (Path(root) / name).relative_to(folder).as_posix()
            if not name.startswith(".") and rel != "SKILL.md":
                found.append(rel)
            if len(found) > MAX_LISTED_FILES:
                return found
    return found


def _loaded(skill: Skill) -> str:
    files = _files(skill.folder)
    listed = "\n".join(f"- {f}" for f in files[:MAX_LISTED_FILES])
    more = f"\n- … (more files: list_files {skill.folder})" if len(files) > MAX_LISTED_FILES else ""
    grants = (f"\nWhile you use it, these run without asking: {', '.join(skill.allowed_tools)}"
              if skill.allowed_tools else "")
    return (f'<skill name="{skill.name}" folder="{skill.folder}">\n{skill.body.strip()}\n</skill>\n\n'
            f"Skill folder: {skill.folder} (paths in the skill are relative to it)"
            + (f"\nFiles in it:\n{listed}{more}" if files else "\nIt has no other files.") + grants)


def skill_spec(skills: dict[str, Skill], on_load: Any = None) -> ToolSpec[Any]:
    """The ``skill`` tool for ``skills``; ``on_load(skill)`` is told each skill the model loads."""
    def handler(tool_input: SkillInput, ctx: ToolContext) -> ToolOutput:
        skill = skills.get(tool_input.name.strip()) or skills.get(tool_input.name.strip().lower())
        if skill is None:
            raise ToolError(f"no skill named {tool_input.name!r}; the skills are: {', '.join(skills)}")
        if on_load is not None:
            on_load(skill)
        return ToolOutput(_loaded(skill), summary=f"loaded skill {skill.name}")

    listing = skill_list(list(skills.values()))
    return ToolSpec(
        name="skill", description=f"{DESCRIPTION}\n{listing}", input_model=SkillInput, handler=handler,
        category="other", is_read_only=lambda _input: True, is_concurrency_safe=lambda _input: True,
        summarize=lambda tool_input: tool_input.name, max_result_chars=120_000,
        short_description=f"Load a skill's instructions ({len(skills)} skills: {', '.join(list(skills)[:8])}"
                          + (", …)" if len(skills) > 8 else ")"),
        source="builtin")
