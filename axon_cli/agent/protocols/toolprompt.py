"""The tool part of the system prompt for calls written as text, in the model family's own format.

Each family (qwen, llama, mistral, deepseek, default) has a template, ``kernel/prompts/text_tools_<family>.md``:
the tools as compact JSON schemas inside ``<tools>…</tools>`` (the wrapper that family's chat
template uses), the call format in its own words with one generic example call in
``<tool_call>`` tags, and when to call. The family comes from the model name: the user's
``tool_formats`` table (name substring → family) first, then ``BUILTIN_FAMILIES``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from axon_cli.kernel.prompts import load_template
from axon_cli.tools.spec import ToolSpec

__all__ = ["FAMILIES", "BUILTIN_FAMILIES", "BEGIN", "family_for", "tools_block", "auto_block", "compact_tool", "later_native_tools",
           "example_call", "later_tools"]

FAMILIES = ("qwen", "llama", "mistral", "deepseek", "default")
# model-name substring → family, first match wins (deepseek-r1-distill-qwen is a DeepSeek template)
BUILTIN_FAMILIES: dict[str, str] = {
    "deepseek": "deepseek", "mistral": "mistral", "mixtral": "mistral", "codestral": "mistral",
    "devstral": "mistral", "llama": "llama", "qwen": "qwen", "qwq": "qwen", "hermes": "qwen",
}
BEGIN = ("When the task needs the project's files or commands, begin by calling a tool; when it is done, "
         "answer in plain text without a function call.")
_WRAPPED = {"qwen", "llama", "mistral"}   # families whose templates list {"type": "function", "function": …}
_ARGS_KEY = {"llama": "parameters"}
_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength")


def first_sentence(text: str, limit: int) -> str:
    """The first sentence of ``text``, cut at a word boundary to at most ``limit`` characters."""
    line = " ".join(text.strip().split())
    m = re.match(r"(.+?)(?<!e\.g)(?<!i\.e)([.;])(?:\s|$)", line)   # not at "e.g." / "i.e."; no trailing ";"
    line = m.group(1) + ("." if m.group(2) == "." else "") if m else line
    return line if len(line) <= limit else line[:limit].rsplit(" ", 1)[0].rstrip(",;:(") + "…"


def family_for(model: str, overrides: Mapping[str, str] | None = None) -> str:
    """The prompt family for ``model``: the user's table first, then the built-in one, else default."""
    name = model.lower()
    for table in (overrides or {}, BUILTIN_FAMILIES):
        for key, family in table.items():
            if key.lower() in name:
                return family
    return "default"


def compact_tool(spec: ToolSpec[Any], wrapped: bool = True, params: bool = True) -> dict[str, Any]:
    """An OpenAI tool with one-line descriptions and no bounds (dispatch still validates them);
    without ``params``, no parameter descriptions either."""
    schema = dict(spec.json_schema())
    schema.pop("additionalProperties", None)
    props = {}
    for name, prop in (schema.get("properties") or {}).items():
        if isinstance(prop, dict):
            prop = {k: v for k, v in prop.items() if k not in _BOUNDS}
            if prop.get("description") and params:
                prop["description"] = first_sentence(prop["description"], 80)
            elif "description" in prop:
                del prop["description"]
        props[name] = prop
    if props:
        schema["properties"] = props
    function = {"name": spec.name, "description": first_sentence(spec.one_line(), 120), "parameters": schema}
    return {"type": "function", "function": function} if wrapped else function


def _schemas(specs: list[ToolSpec[Any]], family: str, detailed: bool) -> str:
    tools = [compact_tool(s, wrapped=family in _WRAPPED, params=detailed) for s in specs]
    if family == "mistral":
        return json.dumps(tools, separators=(",", ":"))
    return "\n".join(json.dumps(t, separators=(",", ":")) for t in tools)


def example_call(specs: list[ToolSpec[Any]], family: str = "default") -> str:
    """One short call of the first tool whose required parameters are all strings, with placeholders."""
    for spec in specs:
        schema = spec.json_schema()
        required = schema.get("required") or []
        props = schema.get("properties") or {}
        if required and all((props.get(p) or {}).get("type") == "string" for p in required):
            args = {p: f"<{p}>" for p in required}
            return json.dumps({"name": spec.name, _ARGS_KEY.get(family, "arguments"): args})
    return json.dumps({"name": specs[0].name, _ARGS_KEY.get(family, "arguments"): {}})


def tools_block(specs: list[ToolSpec[Any]], family: str, detailed: bool = True) -> str:
    """The text protocol's tool section for ``specs`` in ``family``'s format ("" without tools)."""
    if not specs:
        return ""
    family = family if family in FAMILIES else "default"
    return load_template(f"text_tools_{family}.md").format(
        tools=_schemas(specs, family, detailed), example=example_call(specs, family), begin=BEGIN).rstrip() + "\n"


def later_tools(specs: list[ToolSpec[Any]], family: str, detailed: bool = True) -> str:
    """Tools activated after the system prompt was sent, in the same schema form."""
    return "These tools are now available too:\n<tools>\n" + _schemas(specs, family, detailed) + "\n</tools>"


def later_native_tools(specs: list[ToolSpec[Any]], compact: bool = False) -> str:
    """Tools activated after the request's ``tools`` were fixed (a local endpoint's prompt head),
    each as the function definition ``tools`` would have carried, descriptions whole."""
    functions = [compact_tool(s, wrapped=False) if compact else s.openai_tool()["function"] for s in specs]
    return ("These tools are now available too; call them like the others:\n<tools>\n"
            + "\n".join(json.dumps(f, separators=(",", ":")) for f in functions) + "\n</tools>")


def auto_block(specs: list[ToolSpec[Any]], family: str) -> str:
    """What ``auto`` adds to the system prompt: the text call format as a fall-back, and when to call."""
    if not specs:
        return ""
    return load_template("text_tools_auto.md").format(example=example_call(specs, family), begin=BEGIN).rstrip() + "\n"
