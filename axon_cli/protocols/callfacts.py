"""Two facts about one tool call, read by the loop, the protocols and the guidance: its identity
(``call_key``: name and canonical arguments) and whether it only reads (``read_only_call``)."""

from __future__ import annotations

import json
from typing import Any

from axon_cli.tools.dispatch import ToolCall
from axon_cli.tools.registry import ToolRegistry

__all__ = ["read_only_call", "call_key"]


def read_only_call(registry: ToolRegistry, call: ToolCall) -> bool:
    """Whether the tool says this call, with its arguments, only reads; False when it cannot be told
    (unknown tool, bad arguments)."""
    spec = registry.get(call.name)
    if spec is None:
        return False
    try:
        args: Any = json.loads(call.arguments) if call.arguments.strip() else {}
        return bool(spec.is_read_only(spec.input_model.model_validate(args)))
    except Exception:
        return False


def call_key(call: ToolCall) -> str:
    """The call's name and arguments, the arguments in a canonical form."""
    try:
        args = json.dumps(json.loads(call.arguments or "{}"), sort_keys=True)
    except ValueError:
        args = call.arguments
    return f"{call.name}:{args}"
