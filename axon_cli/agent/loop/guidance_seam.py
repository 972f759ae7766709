"""The loop's one seam to the answer guidance for small models (``axon_cli/agent/guidance/``).

``TurnGuide`` is all the loop calls: at the start of a user turn, before each call runs (a repeat
may be refused), after each batch of calls, after each reply without calls (a reminder may be sent
back instead of accepting it), and to ask whether the run must stop. ``choose_guide`` picks it from
the ``guidance`` setting (``agent/model/endpoints.guidance_on``): ``NoGuide`` when off, else the guidance
package's ``Guidance``, imported only then.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from axon_cli.agent.model.endpoints import guidance_on
from axon_cli.kernel.turn import UserTurn
from axon_cli.settings.config import Settings
from axon_cli.tools.dispatch import CallResult, ToolCall
from axon_cli.tools.ledger import CallLedger
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext

__all__ = ["TurnGuide", "NoGuide", "choose_guide"]


class TurnGuide(Protocol):
    reason: str      # why the last message was sent back, for a Notice event

    def new_turn(self, turn: UserTurn, hint: str | None) -> None:
        """A user turn begins with ``turn`` (the user's words and attached files); ``hint`` says how
        the protocol calls a tool."""

    def bind(self, ledger: CallLedger) -> None:
        """The agent's call ledger (the repeat rule reads its runs and notes its refusals there)."""

    def refusal(self, call: ToolCall) -> str | None:
        """The answer to give instead of running ``call``, or None to run it."""

    def after_calls(self, calls: list[ToolCall], results: list[CallResult]) -> list[CallResult]:
        """What a batch of calls came back with; returns the results to send (a failed one may carry
        the next step)."""

    def after_reply(self, answer: str) -> str | None:
        """A message to send back instead of accepting ``answer`` as final, or None."""

    def stop_reason(self) -> str | None:
        """Why the run stops now, as an error, or None."""

    def required_call(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        """When the next reply can only sensibly be a call of one of ``tools`` (the project tools
        offered, OpenAI tool dicts): those tools as that call may use them, narrowed to what the
        session has seen (the loop then asks the endpoint to constrain the reply to one call, where
        it can: ``agent/model/constrained.py``); None when the reply may be anything."""

    def attach(self, turn: UserTurn) -> UserTurn:
        """The user's turn with the files it names attached, as an ``@path`` mention would attach them."""


class NoGuide:
    """Guidance off: every reply is taken as it is and every call runs."""

    def __init__(self) -> None:
        self.reason = ""

    def new_turn(self, turn: UserTurn, hint: str | None) -> None:
        pass

    def bind(self, ledger: CallLedger) -> None:
        pass

    def refusal(self, call: ToolCall) -> str | None:
        return None

    def after_calls(self, calls: list[ToolCall], results: list[CallResult]) -> list[CallResult]:
        return results

    def after_reply(self, answer: str) -> str | None:
        return None

    def stop_reason(self) -> str | None:
        return None

    def required_call(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        return None

    def attach(self, turn: UserTurn) -> UserTurn:
        return turn


def choose_guide(settings: Settings, registry: ToolRegistry, ctx: ToolContext,
                 reads_unasked: Callable[[str], bool] | None = None) -> TurnGuide:
    """``NoGuide`` when the ``guidance`` setting is off for this endpoint and model, else ``Guidance``
    (``reads_unasked``: whether read_file of a path would run without asking, for attached files)."""
    if not guidance_on(settings):
        return NoGuide()
    from axon_cli.agent.guidance.guide import Guidance  # only with guidance on

    return Guidance(registry, ctx, reads_unasked)
