"""Markdown files with optional front matter (custom commands and agent definitions).

Only the small subset of YAML these files use: ``key: value`` lines, where a value is a quoted or
plain string, an integer, ``true``/``false``, a ``[a, b]`` list, or a block list of ``- item``
lines; ``#`` starts a comment line. Keys may be written with ``-`` or ``_`` (``allowed-tools``
as in Claude Code's commands is ``allowed_tools``).
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


def _fields(lines: list[str]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    key: str | None = None
    for n, raw in enumerate(lines, start=2):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = re.match(r"^\s+-\s*(.*)$", line) or re.match(r"^-\s+(.*)$", line)
        if item and key is not None and isinstance(fields.get(key), list):
            fields[key].append(_scalar(item.group(1)))
            continue
        match = _KEY.match(line)
        if match is None:
            raise FrontMatterError(f"line {n}: expected 'key: value', got {line.strip()!r}")
        key = match.group(1).replace("-", "_").lower()
        value = match.group(2).strip()
        fields[key] = [] if value == "" else _value(value)
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
