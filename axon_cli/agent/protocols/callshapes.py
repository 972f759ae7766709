"""A reply that is nothing but tool calls written as JSON, the way small models write them when no
tags are used: exactly one JSON object (bare or in one ```json fence), several of them (a list,
one after another, or several fences and nothing else), with the model family's own markers
(``[TOOL_CALLS]``, ``<|python_tag|>``) and wrappers (``{"type": "function", "function": {…}}``),
also after a reasoning model's ``<think>…</think>`` block.

An object has the call shape when it holds a string ``name`` and an object ``arguments`` (or
``parameters``) and nothing else but ``type``/``id``. Only a reply whose every JSON value has that
shape counts; a package.json or an explanation with a JSON example never does. A value JSON cannot
read may be a Python-style literal (``pyliteral.py``): the same shape rules apply to it.
"""

from __future__ import annotations

import re
from typing import Any

from axon_cli.agent.protocols.pyliteral import python_literal
from axon_cli.kernel.loaders import json_prefix, json_value

__all__ = ["whole_reply_calls", "leading_calls", "call_shape"]

_THINKING = re.compile(r"\A\s*<think>.*?</think>", re.S)   # a reasoning model's thoughts come first
_MARKERS = re.compile(r"\A\s*(?:\[TOOL_CALLS\]|<\|python_tag\|>|functools)\s*")
_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n(.*?)```", re.S)
_EXTRA_KEYS = {"type", "id"}


def call_shape(item: Any) -> tuple[str, dict[str, Any]] | None:
    """(name, arguments) if ``item`` is a call-shaped object, else None."""
    if isinstance(item, dict) and isinstance(item.get("function"), dict) and set(item) <= {"function", *_EXTRA_KEYS}:
        item = item["function"]
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        return None
    keys = set(item) - _EXTRA_KEYS - {"name"}
    if len(keys) != 1 or not keys <= {"arguments", "parameters"}:
        return None
    args = item[keys.pop()]
    if isinstance(args, str):   # some models send the arguments as a JSON string
        try:
            args = json_value(args) if args.strip() else {}
        except ValueError:
            return None
    return (item["name"], args) if isinstance(args, dict) else None


def _values(text: str) -> list[Any] | None:
    """The JSON values ``text`` consists of (separated by whitespace or commas), or None."""
    values: list[Any] = []
    i, end = 0, len(text)
    while True:
        while i < end and text[i] in " \t\r\n,":
            i += 1
        if i >= end:
            return values
        if text[i] not in "{[":
            return None
        try:
            value, i = json_prefix(text, i)
        except ValueError:   # one Python-style value: 'quotes', """a file""", r"raw", True
            value, i = python_literal(text[i:]), end
            if value is None:
                return None
        values.extend(value if isinstance(value, list) else [value])


def _body(content: str) -> tuple[str, str] | None:
    """The JSON text of a reply made of JSON only (bare, or fences and nothing else), and its kind."""
    text = _MARKERS.sub("", _THINKING.sub("", content, count=1), count=1).strip()
    if not text:
        return None
    if text.startswith("```"):
        fences = list(_FENCE.finditer(text))
        if not fences or _FENCE.sub("", text).strip():
            return None
        return "\n".join(m.group(1) for m in fences), "fenced ```json"
    return text, "bare JSON"


def whole_reply_calls(content: str) -> tuple[list[tuple[str, dict[str, Any]]], str] | None:
    """The calls (name, arguments) a reply consisting only of call-shaped JSON holds, and the rule
    that recognised them; None if the reply is anything else."""
    found = _body(content)
    if found is None:
        return None
    text, kind = found
    values = _values(text)
    if not values:
        return None
    calls = [call_shape(v) for v in values]
    if any(c is None for c in calls):
        return None
    many = "several objects" if len(values) > 1 else "one object"
    return [c for c in calls if c is not None], f"whole reply is call JSON ({kind}, {many})"


def _prefix_end(content: str) -> int:
    """Where the reply's own text starts: after a ``<think>`` block and a family's call marker."""
    think = _THINKING.match(content)
    i = think.end() if think else 0
    marker = _MARKERS.match(content, i)
    return marker.end() if marker else i


def leading_calls(content: str) -> tuple[list[tuple[str, dict[str, Any]]], str, int] | None:
    """A reply that OPENS with call JSON — one or more ```json fences, or bare objects, each exactly a
    call — and then goes on in prose (a small model narrating the result it imagines): the calls,
    the rule, and where the prose starts. Prose first, or any JSON value that is not a call, is None."""
    i = _prefix_end(content)
    while i < len(content) and content[i].isspace():
        i += 1
    values: list[Any] = []
    if content.startswith("```", i):
        while (m := _FENCE.match(content, i)) is not None:
            inner = _values(m.group(1).strip())
            if not inner:
                return None
            values.extend(inner)
            i = m.end()
            while i < len(content) and content[i].isspace():
                i += 1
        kind = "fenced ```json"
    else:
        while i < len(content) and content[i] in "{[":
            try:
                value, i = json_prefix(content, i)
            except ValueError:
                return None
            values.extend(value if isinstance(value, list) else [value])
            while i < len(content) and content[i] in " \t\r\n,":
                i += 1
        kind = "bare JSON"
    calls = [call_shape(v) for v in values]
    if not calls or any(c is None for c in calls) or not content[i:].strip():
        return None
    return [c for c in calls if c is not None], f"reply opens with call JSON ({kind}), then prose", i
