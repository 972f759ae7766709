"""Skills: folders with a ``SKILL.md`` (the Agent Skills convention Claude Code, Codex, Gemini CLI
and opencode share), found in the user's dirs (``skills/`` in axon's config dir, ``~/.claude/skills/``,
``~/.agents/skills/``) and the project's (``.axon/skills/``, ``.claude/skills/``, ``.agents/skills/``).

``SKILL.md`` starts with YAML front matter: ``name`` (default: the folder's name), ``description``
(required: what the model reads to choose the skill), optionally ``allowed-tools`` (Claude Code:
tools that run without asking while the skill is in use) and ``disable-model-invocation`` (the
model is not offered the skill). The body and the files beside it are read only when the model
loads the skill (``skill_tool.py``): only names and descriptions go into the first request.

A skill is text for the model, so project skills load in any folder like ``AGENTS.md``; the scripts
a skill tells the model to run are ordinary ``bash`` calls under the permission policy. A project
skill's ``allowed-tools`` widens what runs unasked, so they count only once the folder is trusted
(``settings/trust/files.FILE_KINDS``); until then the skill loads without them. A user's skill wins over
a project skill of the same name (as in Claude Code): a repository cannot replace the user's own.
A broken ``SKILL.md`` is one line naming it and is skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from axon_cli.settings.config import user_config_dir
from axon_cli.settings.trust import TrustView, file_item

__all__ = ["Skill", "LoadedSkills", "load_skills", "skill_dirs", "PROJECT_SKILL_DIRS", "MAX_SKILL_BYTES",
           "MAX_DESCRIPTION"]

PROJECT_SKILL_DIRS = (".axon/skills", ".claude/skills", ".agents/skills")
MAX_SKILL_BYTES = 256_000
MAX_DESCRIPTION = 1024
MAX_SKILLS = 200
_NAME = re.compile(r"[A-Za-z0-9][\w.:-]{0,63}")


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    folder: Path                   # absolute
    shown: str                     # ".claude/skills/pdf/SKILL.md" or "~/.claude/skills/pdf/SKILL.md"
    body: str
    allowed_tools: tuple[str, ...] = ()   # in force only: empty for an untrusted project skill
    waiting_tools: tuple[str, ...] = ()   # a project skill's allowed-tools waiting for trust
    project: bool = False


@dataclass
class LoadedSkills:
    skills: dict[str, Skill] = field(default_factory=dict)
    hidden: list[str] = field(default_factory=list)      # disable-model-invocation skills
    problems: list[str] = field(default_factory=list)


def skill_dirs(project_root: Path) -> list[tuple[Path, bool]]:
    """Where skills are looked for, the user's first: ``(folder, is_project)``."""
    home = Path.home()
    user = [user_config_dir() / "skills", home / ".claude" / "skills", home / ".agents" / "skills"]
    return [(d, False) for d in user] + [(project_root / d, True) for d in PROJECT_SKILL_DIRS]


def _shown(path: Path, project_root: Path, project: bool) -> str:
    if project:
        return path.relative_to(project_root).as_posix()
    home = str(Path.home())
    return "~" + str(path)[len(home):] if str(path).startswith(home + "/") else str(path)


def _read(path: Path, shown: str) -> str:
    """The file's text; a ``FrontMatterError`` for a file too large, unreadable or not text."""
    # loaded when a skill file exists
    from axon_cli.kernel.prompts.frontmatter import FrontMatterError

    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_SKILL_BYTES + 1)
    except OSError as e:
        raise FrontMatterError(f"cannot read ({e.strerror or e})") from None
    if len(data) > MAX_SKILL_BYTES:
        raise FrontMatterError(f"larger than {MAX_SKILL_BYTES // 1000} kB")
    if b"\0" in data:
        raise FrontMatterError("not a text file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FrontMatterError("not UTF-8 text") from None


def _parse(path: Path, shown: str, project: bool, trust: TrustView) -> Skill | None:
    """The skill in ``path`` (None: hidden from the model); ``FrontMatterError`` when broken."""
    from axon_cli.kernel.prompts.frontmatter import FrontMatterError, read_front_matter

    text = _read(path, shown)
    fields, body = read_front_matter(text)
    folder = path.parent
    name = str(fields.get("name") or folder.name).strip()
    if not _NAME.fullmatch(name):
        raise FrontMatterError(f"{name!r} is not a skill name (letters, digits, - _ . :, at most 64)")
    description = " ".join(str(fields.get("description") or "").split())
    if not description:
        raise FrontMatterError("no description: (the model chooses a skill by it)")
    if fields.get("disable_model_invocation") is True:
        return None
    tools = tuple(_tool_list(fields.get("allowed_tools")))
    granted = tools if not project or trust.allows(file_item("skill", shown, text.encode("utf-8"))) else ()
    return Skill(name, description[:MAX_DESCRIPTION], folder.resolve(), shown, body, granted,
                 tools if not granted else (), project)


def _tool_list(value: object) -> list[str]:
    """``allowed-tools`` as Claude Code writes it (``Read, Grep``) or as the Agent Skills spec does
    (space-separated: ``Bash(git:*) Read``)."""
    from axon_cli.kernel.prompts.frontmatter import as_list

    items = as_list(value) if isinstance(value, list) or "," in str(value or "") else \
        re.findall(r"[^\s(]+(?:\([^)]*\))?", str(value or ""))
    return [item for item in items if item]


def load_skills(project_root: Path, trust: TrustView) -> LoadedSkills:
    out = LoadedSkills()
    for folder, project in skill_dirs(project_root):
        try:
            entries = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
        except OSError:
            continue
        for entry in entries:
            path = entry / "SKILL.md"
            if not path.is_file() or len(out.skills) >= MAX_SKILLS:
                continue
            shown = _shown(path, project_root, project)
            from axon_cli.kernel.prompts.frontmatter import FrontMatterError

            try:
                skill = _parse(path, shown, project, trust)
            except FrontMatterError as e:
                out.problems.append(f"{shown}: {e}; skill skipped")
                continue
            if skill is None:
                out.hidden.append(shown)
            elif skill.name in out.skills:
                out.problems.append(f"{shown}: a skill named {skill.name!r} is already loaded from "
                                    f"{out.skills[skill.name].shown}; skipped")
            else:
                out.skills[skill.name] = skill
    return out
