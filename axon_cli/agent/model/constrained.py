"""Constrained decoding of one tool call: when the next reply can only sensibly be a call, a local
server is asked for a reply that *is* one call of one of the given tools, so a small model cannot
answer with a guess instead.

The request carries the JSON schema of ``{"name": TOOL, "arguments": {...}}`` (one branch per tool,
each with that tool's own parameters) in ``response_format``, which OpenAI-compatible local servers
compile into a grammar: first in the OpenAI form (``json_schema``: llama.cpp's server, vLLM, LM
Studio, Ollama), then, when the server refuses that, in llama-cpp-python's (``json_object`` with a
``schema``). With native tools it also asks ``tool_choice: "required"``. The reply comes back as
JSON text (or as a native call, where the server makes one); ``call_text`` turns the JSON into the
``<tool_call>`` block every protocol reads.

What a server honours is learnt per session from its answers, silently: a refusal of both forms, or
a constrained reply that is not a call, ends constraining for the session. Only a local or
private-network endpoint is ever constrained: a hosted model is not.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from axon_cli.kernel.loaders import json_value

__all__ = ["FORMS", "Constraint", "call_schema", "call_text"]

log = logging.getLogger("axon.llm")
FORMS = ("json_schema", "json_object")
_REFUSAL_WORDS = ("response_format", "json_schema", "json_object", "schema", "grammar")
_DROPPED_KEYS = {"title", "examples"}


def _plain(schema: Any) -> Any:
    """``schema`` without the keys a grammar has no use for; every object closed to other keys."""
    if isinstance(schema, list):
        return [_plain(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _plain(v) for k, v in schema.items() if k not in _DROPPED_KEYS}
    if isinstance(out.get("properties"), dict):
        out["properties"] = {name: _plain(s) for name, s in schema["properties"].items()}
        out.setdefault("additionalProperties", False)
    return out


def call_schema(tools: list[dict[str, Any]]) -> dict[str, Any]:
    """The schema of one call of one of ``tools`` (OpenAI tool dicts): ``{"name", "arguments"}``."""
    branches: list[dict[str, Any]] = []
    defs: dict[str, Any] = {}
    for tool in tools:
        fn = tool.get("function", tool)
        params = _plain(fn.get("parameters") or {"type": "object", "properties": {}})
        defs.update(params.pop("$defs", {}))
        branches.append({"type": "object", "properties": {"name": {"const": fn["name"]}, "arguments": params},
                         "required": ["name", "arguments"], "additionalProperties": False})
    schema: dict[str, Any] = {"anyOf": branches} if len(branches) > 1 else branches[0]
    if defs:
        schema["$defs"] = defs
    return schema


def call_text(content: str, names: set[str]) -> str | None:
    """A constrained reply (``{"name": …, "arguments": {…}}``, perhaps fenced) as a ``<tool_call>``
    block, or None when it is not one call of one of ``names``."""
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        value = json_value(text)
    except ValueError:
        return None
    if not isinstance(value, dict) or value.get("name") not in names:
        return None
    args = value.get("arguments", value.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json_value(args)
        except ValueError:
            return None
    if not isinstance(args, dict):
        return None
    return "<tool_call>\n" + json.dumps({"name": value["name"], "arguments": args}) + "\n</tool_call>"


class Constraint:
    """One session's constraining: which ``response_format`` form to send next, and whether the
    server still counts as honouring it."""

    def __init__(self, local: bool) -> None:
        self.form: int | None = 0 if local else None     # the index into FORMS; None: never constrain
        self.honoured: bool | None = None                # None: not yet seen

    @property
    def available(self) -> bool:
        return self.form is not None and self.form < len(FORMS) and self.honoured is not False

    def params(self, schema: dict[str, Any], native_tools: bool) -> dict[str, Any]:
        """The request parameters that ask for one call matching ``schema``."""
        assert self.form is not None
        if FORMS[self.form] == "json_schema":
            fmt: dict[str, Any] = {"type": "json_schema", "json_schema": {"name": "tool_call", "schema": schema}}
        else:
            fmt = {"type": "json_object", "schema": schema}
        return {"response_format": fmt, **({"tool_choice": "required"} if native_tools else {})}

    def refused(self, status: int, message: str, params: dict[str, Any]) -> bool:
        """An error answering a constrained request that names the constraint (or says nothing): the
        next form is tried, and after the last none; whether the request should be sent again."""
        if "response_format" not in params or not 400 <= status < 600 or self.form is None:
            return False
        text = message.lower()
        if not any(w in text for w in _REFUSAL_WORDS) and text.strip() not in ("", "{}", "null"):
            return False
        log.info("the endpoint refused response_format %s (HTTP %s: %s)", FORMS[self.form], status, text[:120])
        self.form += 1
        return True

    def replied(self, made_call: bool) -> None:
        """A constrained request was answered: with a call (honoured), or without one, which ends
        constraining unless the server has honoured it before (then the reply was the model's slip)."""
        if made_call:
            self.honoured = True
        elif self.honoured is None:
            log.info("the endpoint ignored response_format; not constraining replies any more")
            self.honoured = False
