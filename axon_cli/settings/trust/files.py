"""The second list of what a project ships that widens what axon does: whole project files that are
code or grant tools (``FILE_KINDS``: Python tools, commands with allowed tools or ``!`` lines, skills
with allowed tools). Each becomes an item pinned by the file's exact bytes; the extension loaders
check those themselves with ``TrustView.allows(file_item(...))``. The first list, of keys inside the
settings files, is ``widening.KINDS``. Adding a kind is one entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from axon_cli.settings.trust.items import WideningItem, file_item

__all__ = ["FileKind", "FILE_KINDS", "extension_items"]


@dataclass(frozen=True)
class FileKind:
    kind: str
    folder: str       # project-relative
    pattern: str
    widens: str
    shows: Callable[[str, bytes], str | None]    # None: this file widens nothing


def _tool_shows(rel: str, data: bytes) -> str | None:
    return f"Python tool file {rel}: its code runs inside axon"


def _command_shows(rel: str, data: bytes) -> str | None:
    from axon_cli.kernel.prompts.frontmatter import FrontMatterError, as_list, split_front_matter
    from axon_cli.kernel.prompts.shell_lines import SHELL_SPAN

    try:   # the same reader the command loader uses, so both agree on what is a command with tools
        front, body = split_front_matter(data.decode("utf-8", "replace"))
    except FrontMatterError:
        return None   # the loader reports and skips a broken file
    spans = [m.group(1) for m in SHELL_SPAN.finditer(body)]
    if "allowed_tools" not in front and not spans:
        return None
    tools = ", ".join(as_list(front.get("allowed_tools"))) or "nothing"
    runs = f"; runs before its prompt: {', '.join(spans)}" if spans else ""
    return f"command /{Path(rel).stem} ({rel}) lets its calls run without asking: {tools}{runs}"


def _skill_shows(rel: str, data: bytes) -> str | None:
    from axon_cli.kernel.prompts.frontmatter import FrontMatterError, read_front_matter

    try:   # the same reader the skill loader uses
        front, _body = read_front_matter(data.decode("utf-8", "replace"))
    except FrontMatterError:
        return None
    tools = front.get("allowed_tools")
    if not tools:
        return None
    shown = ", ".join(tools) if isinstance(tools, list) else str(tools)
    return f"skill {Path(rel).parent.name} ({rel}) lets its calls run without asking: {shown}"


FILE_KINDS: tuple[FileKind, ...] = (
    FileKind("tool", ".axon/tools", "*.py", "each `.axon/tools/*.py`: Python code that runs inside axon",
             _tool_shows),
    FileKind("command", ".axon/commands", "**/*.md", "each `.axon/commands/**/*.md` whose front matter has "
                                                     "`allowed-tools` or whose text has a `` !`cmd` `` line: "
                                                     "tools it lets run, commands it runs", _command_shows),
    FileKind("command", ".claude/commands", "**/*.md", "each `.claude/commands/**/*.md` (Claude Code's), "
                                                       "the same way", _command_shows),
    *(FileKind("skill", folder, "*/SKILL.md", f"each `{folder}/*/SKILL.md` whose front matter has "
                                               "`allowed-tools`: tools it lets run", _skill_shows)
      for folder in (".axon/skills", ".claude/skills", ".agents/skills")),
)


def extension_items(root: Path) -> list[WideningItem]:
    """The whole-file items of the project, pinned by the exact bytes on disk."""
    items = []
    for kind in FILE_KINDS:
        for path in sorted((root / kind.folder).glob(kind.pattern)):
            try:
                data = path.read_bytes()
            except OSError:
                continue
            rel = path.relative_to(root).as_posix()
            shows = kind.shows(rel, data)
            if shows is not None:
                items.append(file_item(kind.kind, rel, data, shows))
    return items
