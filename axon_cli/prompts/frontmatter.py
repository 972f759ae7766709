"""Markdown files with optional front matter (custom commands and agent definitions).

Only the small subset of YAML these files use: ``key: value`` lines, where a value is a quoted or
plain string, an integer, ``true``/``false``, a ``[a, b]`` list, or a block list of ``- item``
lines; ``#`` starts a comment line. Keys may be written with ``-`` or ``_`` (``allowed-tools``
as in Claude Code's commands is ``allowed_tools``). As in the files Claude Code users share, a
value may go on over indented lines (a plain string or a ``[…]`` list on the line after its key),
a ``|`` or ``>`` block keeps (or folds) the indented lines below it, and a nested table is kept
as its text (no loader reads one).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["FrontMatterError", "split_front_matter", "as_list"]

_KEY = re.compile(r"^([A-Za-z][\w-]*)\s*:\s*(.*)$")


class FrontMatterError(ValueError):
    """A front matter line that is not ``key: value`` (the message names the line)."""


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """``(fields, body)``; a file without a leading ``---`` line has no fields."""
    text = text.lstrip("\ufeff")
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        raise FrontMatterError("the front matter starting with --- on line 1 is never closed by ---")
    return _fields(lines[1:end]), "\n".join(lines[end + 1:]).strip("\n")


def _entries(lines: list[str]) -> list[tuple[int, str, list[str]]]:
    """``(line number, key line, the indented lines that go on with it)`` for each top-level line."""
    entries: list[tuple[int, str, list[str]]] = []
    for n, raw in enumerate(lines, start=2):
        line = raw.rstrip()
        top = bool(line) and not line[0].isspace() and not line.startswith("- ")
        if top and line.startswith("#"):
            continue
        if top or not entries:
            if line.strip() and not line.lstrip().startswith("#"):
                entries.append((n, line, []))
            continue
        entries[-1][2].append(line)
    return entries


def _block(style: str, rest: list[str]) -> str:
    """A ``|`` (lines kept) or ``>`` (lines folded) block, its indentation removed."""
    while rest and not rest[-1].strip():
        rest.pop()
    indent = min((len(r) - len(r.lstrip()) for r in rest if r.strip()), default=0)
    body = [r[indent:] for r in rest]
    if style.startswith("|"):
        return "\n".join(body)
    return "\n".join(" ".join(para.split("\n")) for para in "\n".join(body).split("\n\n"))


def _fields(lines: list[str]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for n, line, rest in _entries(lines):
        match = _KEY.match(line)
        if match is None:
            raise FrontMatterError(f"line {n}: expected 'key: value', got {line.strip()!r}")
        key = match.group(1).replace("-", "_").lower()
        value = match.group(2).strip()
        more = [r.strip() for r in rest if r.strip() and not r.lstrip().startswith("#")]
        style = re.sub(r"\s+#.*$", "", value)
        if re.fullmatch(r"[|>][+-]?", style):
            fields[key] = _block(style, rest)
        elif not more:
            fields[key] = [] if value == "" else _value(value)
        elif value == "" and all(m.startswith("-") for m in more):
            fields[key] = [_scalar(m[1:]) for m in more]
        elif value == "" and _KEY.match(more[0]) and not more[0].startswith(("[", "\"", "'")):
            fields[key] = _block("|", rest)          # a nested table: kept as text
        else:
            fields[key] = _value(" ".join([value, *more]).strip())
    return fields


def _value(text: str) -> Any:
    if text.startswith("[") and text.endswith("]"):
        return [_scalar(part) for part in _split_top(text[1:-1]) if part.strip()]
    return _scalar(text)


def _scalar(text: str) -> Any:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1].replace('\\"', '"') if text[0] == '"' else text[1:-1].replace("''", "'")
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return re.sub(r"\s+#.*$", "", text)


def _split_top(text: str) -> list[str]:
    """Split on commas outside quotes and parentheses (``bash(git diff *), read_file``)."""
    parts: list[str] = []
    current: list[str] = []
    depth, quote = 0, ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return parts


def as_list(value: Any) -> list[str]:
    """A list field written as a list or as one comma-separated string."""
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return [part.strip() for part in _split_top(str(value)) if part.strip()]
