"""Two facts about one tool call, read by the loop, the protocols and the guidance: its identity
(``call_key``: name and canonical arguments) and whether it only reads (``read_only_call``)."""

from __future__ import annotations

from axon_cli.tools.calls import ToolCall, prepared
from axon_cli.tools.registry import ToolRegistry

__all__ = ["read_only_call", "call_key"]


def read_only_call(registry: ToolRegistry, call: ToolCall) -> bool:
    """Whether the tool says this call, with its arguments, only reads; False when it cannot be told
    (unknown tool, bad arguments). The call's facts are computed once (``tools.calls``)."""
    known = prepared(registry, call)
    return known is not None and known.facts.read_only


def call_key(call: ToolCall) -> str:
    """The call's name and arguments, the arguments in a canonical form."""
    return call.key
