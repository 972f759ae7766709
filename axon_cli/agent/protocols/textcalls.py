"""Tool calls written as text, for models without (reliable) native function calling.

``parse_text_calls`` finds the calls a model wrote in its reply (how the tools are shown to the
model is ``toolprompt``):

- ``<tool_call>{"name": …, "arguments": {…}}</tool_call>`` (the Hermes/Qwen convention), also
  ``<tools>…</tools>`` and ``<function_call>…</function_call>`` wrappers, a JSON list inside one,
  a missing closing tag at the very end (several such openings are several calls), and ``"parameters"`` instead of ``"arguments"``;
- a bare fenced ```json block holding exactly ``{"name": <active tool>, "arguments": {…}}``
  (``prose_fences``: the text protocol only);
- a reply that is nothing but call-shaped JSON (``callshapes``: one object, several, fenced), or that
  opens with such calls and then narrates the result the model imagines (the narration is dropped:
  ``prose_from``).

A tagged block, or a call-shaped reply, that cannot be used (bad JSON, unknown or inactive tool,
cut off by the output limit) becomes an error for the model to read (an unknown name with the
closest tool names, ``tools/suggest``); a fenced block that is not exactly a call is just code and
is left alone, and JSON among prose is never a call. ``rules`` says which rule found each call or
error (for ``--debug``); ``whole`` says the reply held nothing but calls.
"""

from __future__ import annotations

import contextlib
import html
import re
from dataclasses import dataclass, field
from typing import Any

from axon_cli.agent.protocols.callshapes import call_shape, leading_calls, whole_reply_calls
from axon_cli.kernel.loaders import json_prefix, json_value
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.suggest import unknown_tool_message

__all__ = ["ParsedCalls", "parse_text_calls"]

_TAGS = "tool_call|tools|function_call"
_CLOSED = re.compile(rf"<({_TAGS})>(.*?)</\1>", re.S)
_UNCLOSED = re.compile(rf"<({_TAGS})>(.*)\Z", re.S)
_OPENING = re.compile(rf"<(?:{_TAGS})>")
_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n(.*?)```", re.S)
_INNER_FENCE = re.compile(r"\A```[a-zA-Z]*\s*\n?(.*?)\n?```\Z", re.S)
FORMAT_HINT = 'Write each call as <tool_call>{"name": "TOOL", "arguments": {...}}</tool_call>.'


@dataclass
class ParsedCalls:
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)   # (name, arguments)
    errors: list[str] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)              # where calls were found
    rules: list[str] = field(default_factory=list)         # per call: the rule that found it
    error_rules: list[str] = field(default_factory=list)   # per error: the rule that found it
    whole: bool = False                                 # the reply held calls (or call errors) only
    prose_from: int | None = None   # a reply that opened with calls: where its narration starts


def parse_text_calls(content: str, registry: ToolRegistry, finish_reason: str | None = None,
                     prose_fences: bool = True) -> ParsedCalls:
    """Every text call in ``content``; only active tools with object arguments become calls."""
    out = ParsedCalls()
    original = content
    if "&lt;" in content or "&#34;" in content or "&quot;" in content:
        content = html.unescape(content)   # llama.cpp's chatml-function-calling template HTML-escapes
    taken: list[tuple[int, int]] = []
    for m in _CLOSED.finditer(content):
        taken.append(m.span())
        _take_tagged(m.group(2), registry, out, f"<{m.group(1)}> block")
    rest = _blank(content, taken)
    cut = _UNCLOSED.search(rest)
    if cut:
        taken.append(cut.span())
        if finish_reason == "length":
            out.errors.append("Error: your reply hit the output token limit inside a <tool_call> block, so "
                              "that call was not run. Send it again, smaller (split a large write into "
                              "several edits).")
            out.error_rules.append("<tool_call> without its closing tag, cut by the output limit")
        else:
            for body in _OPENING.split(cut.group(2)):
                if body.strip():
                    _take_tagged(body, registry, out, f"<{cut.group(1)}> without its closing tag at the end")
    if not taken:
        _take_whole(content, registry, out)
        if out.rules or out.error_rules:
            out.whole = True
            return out
        if _take_leading(content, registry, out, escaped=content is not original):
            return out
    for m in _FENCE.finditer(_blank(content, taken)) if prose_fences else ():
        call = _exact_call(m.group(1), registry)
        if call is not None:
            taken.append(m.span())
            out.calls.append(call)
            out.rules.append("fenced ```json block of exactly the call shape")
    out.spans = sorted(taken)
    out.whole = bool(taken) and not _blank(content, taken).strip()
    return out


def _take_whole(content: str, registry: ToolRegistry, out: ParsedCalls) -> None:
    found = whole_reply_calls(content)
    if found is not None:
        _take_shaped(*found, registry, out)
        out.spans = [(0, len(content))]


def _take_leading(content: str, registry: ToolRegistry, out: ParsedCalls, escaped: bool) -> bool:
    """Calls that open the reply, before prose that narrates what they will show."""
    found = leading_calls(content)
    if found is None:
        return False
    calls, rule, end = found
    _take_shaped(calls, rule, registry, out)
    out.spans = [(0, end)]
    out.prose_from = None if escaped else end
    return True


def _take_shaped(calls: list[tuple[str, dict[str, Any]]], rule: str, registry: ToolRegistry,
                 out: ParsedCalls) -> None:
    """Call-shaped JSON found by ``rule``: each a call of an active tool, or the error to send back."""
    for name, args in calls:
        _record(_check_item({"name": name, "arguments": args}, registry, ""), rule, out)


def _record(checked: tuple[str, dict[str, Any]] | str, rule: str, out: ParsedCalls) -> None:
    """A checked call, or the error to send back, with the rule that found it."""
    if isinstance(checked, str):
        out.errors.append(checked)
        out.error_rules.append(f"{rule}: {checked.split(';')[0]}")
    else:
        out.calls.append(checked)
        out.rules.append(rule)


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with the given spans replaced by spaces (offsets stay valid)."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _take_tagged(body: str, registry: ToolRegistry, out: ParsedCalls, rule: str) -> None:
    body = body.strip()
    fenced = _INNER_FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    shown = body if len(body) <= 200 else body[:200] + "…"
    try:
        data = _loads_lenient(body)
    except ValueError as e:
        out.errors.append(f"Error: this tool call is not valid JSON ({e}): {shown}\n{FORMAT_HINT}")
        out.error_rules.append(f"{rule}: not valid JSON")
        return
    for item in data if isinstance(data, list) else [data]:
        _record(_check_item(item, registry, shown), rule, out)


def _loads_lenient(body: str) -> Any:
    """JSON, or the first JSON value in ``body`` (a model may add a stray brace or a comment)."""
    try:
        return json_value(body)
    except ValueError as first:
        start = min((i for i in (body.find("{"), body.find("[")) if i >= 0), default=-1)
        if start < 0:
            raise ValueError(first.args[0].split(":")[0]) from None
        try:
            value, _end = json_prefix(body, start)
            return value
        except ValueError as e:
            raise ValueError(str(e).split(":")[0]) from None


def _check_item(item: Any, registry: ToolRegistry, shown: str) -> tuple[str, dict[str, Any]] | str:
    """A (name, arguments) call, or an error message for the model (a tool's description, with
    ``description``, is not a call)."""
    if isinstance(item, dict) and isinstance(item.get("function"), dict) and call_shape(item) is not None:
        item = item["function"]   # {"type": "function", "function": {"name": …, "arguments": …}}
    if (not isinstance(item, dict) or not isinstance(item.get("name"), str)
            or set(item) - {"name", "arguments", "parameters", "type", "id"}):
        return (f'Error: a tool call must be a JSON object with "name" and "arguments"; nothing was run: '
                f"{shown}\n{FORMAT_HINT}")
    name = item["name"]
    args = item.get("arguments", item.get("parameters", {}))
    if isinstance(args, str):   # some models send the arguments as a JSON string
        with contextlib.suppress(ValueError):
            args = json_value(args) if args.strip() else {}
    active = ", ".join(s.name for s in registry.active())
    if registry.get(name) is None:
        return unknown_tool_message(name, args, registry)
    if not registry.is_active(name):
        return (f"Error: tool {name!r} is not active yet; nothing was run. Call tool_search with a query "
                f"for it first. Active tools: {active}.")
    if not isinstance(args, dict):
        return f'Error: the "arguments" of {name} must be a JSON object; nothing was run. {FORMAT_HINT}'
    return name, args


def _exact_call(body: str, registry: ToolRegistry) -> tuple[str, dict[str, Any]] | None:
    try:
        data = json_value(body)
    except ValueError:
        return None
    if (isinstance(data, dict) and set(data) == {"name", "arguments"} and isinstance(data["name"], str)
            and isinstance(data["arguments"], dict) and registry.is_active(data["name"])):
        return data["name"], data["arguments"]
    return None
