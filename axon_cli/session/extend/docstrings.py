"""A function's docstring split into its description and one description per parameter.

Three styles are understood: Google (``Args:`` with ``name (type): text`` entries), NumPy
(``Parameters`` underlined by dashes, ``name : type`` then indented text) and Sphinx
(``:param name: text``). The description is everything before the first section.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

__all__ = ["ParsedDoc", "parse_docstring"]

_GOOGLE_PARAMS = {"args", "arguments", "parameters", "params", "keyword args", "keyword arguments",
                  "other parameters"}
_GOOGLE_SECTIONS = _GOOGLE_PARAMS | {"returns", "return", "yields", "yield", "raises", "examples",
                                     "example", "note", "notes", "see also", "attributes", "todo",
                                     "warning", "warnings", "references"}
_GOOGLE_ENTRY = re.compile(r"^(\*{0,2}[A-Za-z_]\w*)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")
_NUMPY_HEADER = re.compile(r"^\s*([A-Za-z][A-Za-z ]*)\s*\n\s*-{3,}\s*$", re.M)
_SPHINX_FIELD = re.compile(r"^:(param|parameter|arg|argument|key|keyword|type|returns?|rtype|raises?)"
                           r"(?:\s+([^:]*))?:\s*(.*)$")


@dataclass
class ParsedDoc:
    description: str = ""
    params: dict[str, str] = field(default_factory=dict)


def parse_docstring(doc: str | None) -> ParsedDoc:
    text = inspect.cleandoc(doc or "")
    if not text:
        return ParsedDoc()
    if _NUMPY_HEADER.search(text):
        return _numpy(text)
    if re.search(r"^:(param|parameter|arg|argument|returns?|raises?)\b", text, re.M):
        return _sphinx(text)
    return _google(text)


def _join(lines: list[str]) -> str:
    """Lines of one description joined; blank lines kept as paragraph breaks."""
    return re.sub(r"[ \t]*\n[ \t]*(?!\n)", " ", "\n".join(line.strip() for line in lines).strip())


def _google(text: str) -> ParsedDoc:
    lines = text.split("\n")
    heads = [i for i, line in enumerate(lines)
             if line.strip().rstrip(":").lower() in _GOOGLE_SECTIONS and line.strip().endswith(":")
             and not line.startswith((" ", "\t"))]
    description = "\n".join(lines[:heads[0]] if heads else lines).strip()
    params: dict[str, str] = {}
    for n, start in enumerate(heads):
        if lines[start].strip().rstrip(":").lower() not in _GOOGLE_PARAMS:
            continue
        end = heads[n + 1] if n + 1 < len(heads) else len(lines)
        params.update(_google_entries(lines[start + 1:end]))
    return ParsedDoc(description, params)


def _google_entries(lines: list[str]) -> dict[str, str]:
    entries: dict[str, list[str]] = {}
    indent: int | None = None
    current: str | None = None
    for line in lines:
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        match = _GOOGLE_ENTRY.match(line.strip())
        if match and (indent is None or depth <= indent):
            indent = depth
            current = match.group(1).lstrip("*")
            entries[current] = [match.group(3)]
        elif current is not None:
            entries[current].append(line)
    return {name: _join(body) for name, body in entries.items()}


def _numpy(text: str) -> ParsedDoc:
    heads = list(_NUMPY_HEADER.finditer(text))
    params: dict[str, str] = {}
    for n, head in enumerate(heads):
        if head.group(1).strip().lower() not in ("parameters", "other parameters", "keyword arguments"):
            continue
        end = heads[n + 1].start() if n + 1 < len(heads) else len(text)
        names: list[str] = []
        body: list[str] = []
        for line in text[head.end():end].split("\n") + ["end"]:
            if line.strip() and not line.startswith((" ", "\t")):   # "name : type" starts an entry
                params.update({name: _join(body) for name in names})
                names = [name.strip().lstrip("*") for name in line.split(":", 1)[0].split(",")]
                body = []
            elif line.strip():
                body.append(line)
    return ParsedDoc(text[:heads[0].start()].strip(), params)


def _sphinx(text: str) -> ParsedDoc:
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if _SPHINX_FIELD.match(line.strip())), len(lines))
    params: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines[first:]:
        match = _SPHINX_FIELD.match(line.strip())
        if match:
            kind, name, body = match.groups()
            current = None
            if kind in ("param", "parameter", "arg", "argument", "key", "keyword") and name:
                current = params.setdefault(name.split()[-1], [])
                current.append(body)
        elif current is not None:
            current.append(line)
    return ParsedDoc("\n".join(lines[:first]).strip(), {k: _join(v) for k, v in params.items()})
