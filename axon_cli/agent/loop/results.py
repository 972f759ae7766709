"""How one user turn ended: the answer (or why not), the stop reason and the model turns used; and
the history mended after a turn an interrupt escaped (every frontend that catches one calls it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from axon_cli.tools.dispatch import INTERRUPTED

__all__ = ["RunResult", "StopReason", "repair_history"]

StopReason = Literal["final", "max_turns", "interrupted", "error"]


@dataclass
class RunResult:
    """How one user turn ended: the answer (or why not), the stop reason and the model turns used."""

    result: str
    stop_reason: StopReason
    num_turns: int
    error: str | None = None


def repair_history(agent: Any) -> None:
    """After an interrupt that escaped the agent: answer every open tool call of the last reply."""
    answered = {m.get("tool_call_id") for m in agent.messages if m.get("role") == "tool"}
    for message in reversed(agent.messages):
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                if call.get("id") not in answered:
                    agent.append({"role": "tool", "tool_call_id": call["id"], "content": INTERRUPTED})
            return
