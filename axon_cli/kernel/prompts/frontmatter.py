"""Markdown files with YAML front matter: custom commands, agent definitions and skills
(``SKILL.md``), read without a YAML library.

The subset of YAML these files use, as people share them between agents (Claude Code, Codex,
Gemini CLI, opencode): ``key: value`` lines (keys may be written with ``-`` or ``_``:
``allowed-tools`` is ``allowed_tools``), a value being a quoted string (with escapes), a plain
string (continued on indented lines), an integer, ``true``/``false``, a flow list ``[a, b]`` or a
block list of ``- item`` lines, a block scalar (``|`` keeps lines, ``>`` folds them, with ``-``/``+``),
or a nested map of indented keys (``metadata:``: a dict of strings); ``#`` starts a comment.
Anything else is a ``FrontMatterError`` naming the line, so a broken file is reported in one line
and skipped, never a traceback.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["FrontMatterError", "split_front_matter", "read_front_matter", "as_list"]

_KEY = re.compile(r"^([A-Za-z_][\w.-]*)\s*:(?:\s+(.*))?$")
_BLOCK = re.compile(r"^([|>])([+-]?)\d?\s*(?:#.*)?$")


class FrontMatterError(ValueError):
    """A front matter line that cannot be read (the message names the line)."""


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """``(fields, body)``; a file without a leading ``---`` line has no fields."""
    text = text.lstrip("\ufeff")
    if text.split("\n", 1)[0].strip() != "---":
        return {}, text
    return read_front_matter(text)


def read_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """``(fields, body)`` of a file that must start with front matter (a skill's name and
    description are there): without a leading ``---`` line, a ``FrontMatterError``."""
    lines = text.lstrip("\ufeff").split("\n")
    if not lines or lines[0].strip() != "---":
        raise FrontMatterError("no front matter (the file must start with a --- line, then name: and description:)")
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        raise FrontMatterError("the front matter starting with --- on line 1 is never closed by ---")
    return _mapping(lines[1:end]), "\n".join(lines[end + 1:]).strip("\n")


def _mapping(lines: list[str]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        n = i + 2          # the line number in the file
        if not line.strip() or line.lstrip().startswith("#"):
            i += 1
            continue
        if line[0] in " \t":
            raise FrontMatterError(f"line {n}: indented line with no key above it: {line.strip()!r}")
        match = _KEY.match(line)
        if match is None:
            raise FrontMatterError(f"line {n}: expected 'key: value', got {line.strip()!r}")
        key, value = match.group(1).replace("-", "_").lower(), (match.group(2) or "").strip()
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or lines[j][:1] in " \t-"):
            j += 1                     # the key's indented (or "- item") continuation lines
        while j > i + 1 and not lines[j - 1].strip():
            j -= 1
        fields[key] = _value(value, lines[i + 1:j], n)
        i = j
    return fields


def _value(value: str, more: list[str], n: int) -> Any:
    block = _BLOCK.match(value)
    if block:
        return _block_scalar(more, block.group(1), block.group(2))
    if value.startswith("#"):
        value = ""
    if value == "":
        rows = [row for row in more if row.strip() and not row.lstrip().startswith("#")]
        if not rows:
            return ""
        if all(row.lstrip().startswith("- ") or row.strip() == "-" for row in rows):
            return [_scalar(row.lstrip()[1:].strip(), n) for row in rows]
        if not _KEY.match(rows[0].strip()):     # the value itself on the lines below its key
            return _value(" ".join(row.strip() for row in rows), [], n)
        return _nested(rows, n)
    if value.startswith("[") and value.endswith("]"):
        return [_scalar(part, n) for part in _split_flow(value[1:-1]) if part.strip()]
    if value[0] in "\"'":
        return _scalar(" ".join([value, *(row.strip() for row in more)]), n)
    if more:                        # a plain value folded over indented lines
        return " ".join([_scalar(value, n), *(row.strip() for row in more if row.strip())])
    return _scalar(value, n)


def _nested(rows: list[str], n: int) -> dict[str, str] | str:
    """A map of ``key: value`` rows; deeper nesting (no loader reads one) is kept as its text."""
    indent = min(len(row) - len(row.lstrip()) for row in rows)
    out: dict[str, str] = {}
    for row in rows:
        match = _KEY.match(row.strip())
        if len(row) - len(row.lstrip()) != indent or match is None or match.group(2) is None:
            return _block_scalar(rows, "|", "")
        out[match.group(1)] = str(_scalar(match.group(2), n))
    return out


def _block_scalar(rows: list[str], style: str, chomp: str) -> str:
    indents = [len(row) - len(row.lstrip()) for row in rows if row.strip()]
    cut = min(indents) if indents else 0
    body = [row[cut:] if row.strip() else "" for row in rows]
    if style == "|":
        text = "\n".join(body)
    else:
        paragraphs: list[str] = []
        current: list[str] = []
        for row in body:
            if row.strip():
                current.append(row.strip())
            else:
                paragraphs.append(" ".join(current))
                current = []
        paragraphs.append(" ".join(current))
        text = "\n".join(paragraphs)
    return text.rstrip("\n") + ("\n" if chomp == "+" else "")


def _scalar(text: str, n: int) -> Any:
    text = text.strip()
    if text[:1] == '"':
        end = _closing_double(text)
        if end is None:
            raise FrontMatterError(f"line {n}: a double-quoted value is never closed")
        raw = text[1:end]
        return re.sub(r'\\(["\\/nt])', lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), raw)
    if text[:1] == "'":
        if len(text) < 2 or not text.endswith("'"):
            raise FrontMatterError(f"line {n}: a single-quoted value is never closed")
        return text[1:-1].replace("''", "'")
    text = re.sub(r"\s+#.*$", "", text)
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return text


def _closing_double(text: str) -> int | None:
    i = 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i
        i += 1
    return None


def _split_flow(text: str) -> list[str]:
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
    return [part.strip() for part in _split_flow(str(value)) if part.strip()]
