"""Project memory: ``memory_save(name, content)`` and ``memory_read(name?)`` (deferred tools).

Each memory is one Markdown file ``.axon/memory/<name>.md``. Names are plain words
(``[A-Za-z0-9_.-]``, not starting with a dot), so a name can never leave that directory. Writes are
atomic; ``memory_read`` without a name lists what exists, with sizes and first lines.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from axon_cli.kernel.state import atomic_write, ensure_state_dir
from axon_cli.machinery.masking.written import masked_text
from axon_cli.tools.spec import ToolContext, ToolError, ToolOutput, ToolSpec

__all__ = ["TOOLS", "MemorySaveInput", "MemoryReadInput", "memory_save", "memory_read", "memory_dir",
           "validate_name", "MAX_CONTENT_CHARS"]

MAX_CONTENT_CHARS = 100_000
MAX_NAME_CHARS = 100
_NAME = re.compile(r"[A-Za-z0-9_.-]+")


class MemorySaveInput(BaseModel):
    name: str = Field(description="Short name, letters/digits/_.- (e.g. build-notes)")
    content: str = Field(description="Markdown text; replaces any memory of that name")


class MemoryReadInput(BaseModel):
    name: str | None = Field(None, description="Omit to list saved memories")


def memory_dir(ctx: ToolContext) -> Path:
    return ctx.state_dir / "memory"


def validate_name(name: str) -> str:
    """The name without a trailing ``.md``; ToolError if it could escape the memory directory."""
    name = name.strip()
    if name.lower().endswith(".md") and len(name) > 3:
        name = name[:-3]
    if not name or len(name) > MAX_NAME_CHARS or not _NAME.fullmatch(name) or name.startswith("."):
        raise ToolError(f"invalid memory name {name!r}: use 1-{MAX_NAME_CHARS} letters, digits, '_', '-' "
                        "or '.', not starting with '.' (e.g. 'build-notes')")
    return name


def _entries(ctx: ToolContext) -> list[Path]:
    folder = memory_dir(ctx)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.md") if p.is_file() and not p.name.startswith("."))


def _first_line(path: Path) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.strip():
                    text = line.strip()
                    return text if len(text) <= 80 else text[:79] + "…"
    except OSError:
        pass
    return ""


def _names(ctx: ToolContext) -> list[str]:
    return [p.stem for p in _entries(ctx)]


def memory_save(inp: MemorySaveInput, ctx: ToolContext) -> ToolOutput:
    name = validate_name(inp.name)
    if len(inp.content) > MAX_CONTENT_CHARS:
        raise ToolError(f"content is {len(inp.content)} chars; a memory holds at most {MAX_CONTENT_CHARS}. "
                        "Save a shorter summary or split it into several names.")
    ensure_state_dir(ctx.state_dir)
    path = memory_dir(ctx) / f"{name}.md"
    existed = path.exists()
    text = inp.content if inp.content.endswith("\n") or not inp.content else inp.content + "\n"
    try:
        atomic_write(path, masked_text(text).encode("utf-8"))
    except OSError as e:
        raise ToolError(f"could not save memory {name!r}: {e.strerror or e}") from e
    verb = "replaced" if existed else "saved"
    rel = ctx.relative(path)
    return ToolOutput(f"Memory {name!r} {verb} ({len(text)} chars) in {rel}.", summary=f"{verb} {name}")


def memory_read(inp: MemoryReadInput, ctx: ToolContext) -> ToolOutput:
    if inp.name is None or not inp.name.strip():
        entries = _entries(ctx)
        if not entries:
            return ToolOutput("No memories saved yet (memory_save creates one).", summary="no memories")
        lines = [f"{len(entries)} saved memor{'ies' if len(entries) != 1 else 'y'}:"]
        lines += [f"- {p.stem} ({p.stat().st_size} bytes): {_first_line(p)}" for p in entries]
        return ToolOutput("\n".join(lines), summary=f"{len(entries)} memories")
    name = validate_name(inp.name)
    path = memory_dir(ctx) / f"{name}.md"
    if not path.is_file():
        names = ", ".join(_names(ctx)) or "none saved yet"
        raise ToolError(f"no memory named {name!r}. Saved memories: {names}")
    try:
        content = path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise ToolError(f"could not read memory {name!r}: {e.strerror or e}") from e
    return ToolOutput(content, summary=f"read {name}")


def _path_of(name: str | None) -> list[str]:
    try:
        return [f".axon/memory/{validate_name(name)}.md"] if name else [".axon/memory"]
    except ToolError:
        return []


TOOLS: list[ToolSpec[Any]] = [
    ToolSpec(
        name="memory_save",
        description="Save a note to project memory (.axon/memory/NAME.md) to remember across sessions; "
                    "replaces that name's note.",
        short_description="save a named note to project memory (persists across sessions)",
        input_model=MemorySaveInput,
        handler=memory_save,
        category="other",
        is_read_only=lambda _i: False,
        is_destructive=lambda _i: False,
        paths=lambda i: _path_of(i.name),
        summarize=lambda i: i.name,
        deferred=True,
    ),
    ToolSpec(
        name="memory_read",
        description="Read a note from project memory by name; without a name, list saved notes.",
        short_description="read a project memory note, or list saved notes",
        input_model=MemoryReadInput,
        handler=memory_read,
        category="read",
        is_read_only=lambda _i: True,
        paths=lambda i: _path_of(i.name),
        summarize=lambda i: i.name or "(list)",
        deferred=True,
    ),
]
