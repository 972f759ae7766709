"""The tool-protocol interface the loop talks to (``ToolProtocol``), the plain native protocol, and
each protocol's one-line hint of how the model calls a tool (read by the answer guidance).

Protocol implementations (``builtin``) import this module, never the loop.
"""

from __future__ import annotations

from typing import Any, Protocol

from axon_cli.agent.model.turns import AssistantTurn
from axon_cli.tools.dispatch import CallResult
from axon_cli.tools.ledger import CallLedger
from axon_cli.tools.registry import ToolRegistry

__all__ = ["ToolProtocol", "NativeProtocol", "NATIVE_HINT", "TEXT_HINT"]

NATIVE_HINT = "call one of your tools (function calling) instead of describing the step or showing a command"
TEXT_HINT = ('write a <tool_call>{"name": "TOOL", "arguments": {...}}</tool_call> block instead of '
             "describing the step or showing a command")


class ToolProtocol(Protocol):
    """How tools reach the model and calls come back: natively, or as text (small local models)."""

    def tools_param(self, registry: ToolRegistry) -> list[dict[str, Any]] | None: ...

    def extract_calls(self, turn: AssistantTurn, registry: ToolRegistry) -> AssistantTurn: ...

    def result_messages(self, turn: AssistantTurn, results: list[CallResult]) -> list[dict[str, Any]]: ...

    def new_turn(self, task: str = "") -> None:
        """A user turn begins; ``task`` is the user's words, without the files attached to them
        (a protocol's per-turn memory starts afresh)."""

    def bind(self, ledger: CallLedger) -> None:
        """The agent's call ledger, where a protocol's refusals are noted and applied edits read."""


class NativeProtocol:
    """Tools in the request's ``tools`` field, calls back as ``tool_calls``, results as tool messages."""

    def new_turn(self, task: str = "") -> None:
        pass

    def bind(self, ledger: CallLedger) -> None:
        pass

    def tools_param(self, registry: ToolRegistry) -> list[dict[str, Any]] | None:
        return registry.openai_tools() or None

    def extract_calls(self, turn: AssistantTurn, registry: ToolRegistry) -> AssistantTurn:
        return turn

    def result_messages(self, turn: AssistantTurn, results: list[CallResult]) -> list[dict[str, Any]]:
        return [{"role": "tool", "tool_call_id": r.call_id, "content": r.content} for r in results]
