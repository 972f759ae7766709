"""The agent loop's two seams besides the tool protocol.

``AgentCallbacks``: what the session attaches to the loop (transcript, compaction, cost); each
default does nothing. ``TurnHooks``: the user's hooks around a turn (``UserPromptSubmit`` and
``Stop`` from config.toml, run by ``axon_cli/session/extend/``); the loop only sees this Protocol.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from axon_cli.agent.loop.results import RunResult
    from axon_cli.agent.model.llm import LLMClient
    from axon_cli.kernel.turn import UserTurn
    from axon_cli.tools.registry import ToolRegistry

__all__ = ["AgentCallbacks", "TurnHooks", "PromptVerdict", "Loop"]


class Loop(Protocol):
    """What the session's callbacks see of the agent loop (``agent/loop/agent.Agent`` is one)."""

    llm: LLMClient
    registry: ToolRegistry
    messages: list[dict[str, Any]]

    def system_prompt(self) -> str: ...

    def project_context(self) -> str: ...


class AgentCallbacks:
    """Session extension points (transcript, compaction, cost); each default does nothing."""

    def on_user_turn(self, turn: UserTurn) -> None:
        """A user turn begins (its message is appended next): what the user wrote and attached."""

    def on_message(self, message: dict[str, Any]) -> None:
        """A message was appended to the conversation."""

    def before_request(self, agent: Loop) -> None:
        """About to query the model (compaction looks at ``agent.messages`` here)."""

    def on_context_too_long(self, agent: Loop) -> bool:
        """The endpoint rejected the request as too long: shrink the history; True to retry once."""
        return False

    def cost(self, agent: Loop) -> float | None:
        return None

    def after_turn(self, agent: Loop, result: RunResult) -> None:
        """A user turn ended (any stop reason)."""


@dataclass
class PromptVerdict:
    """What the user's hooks said about a prompt: blocked (with the reason), or extra context."""

    blocked: bool = False
    reason: str = ""
    context: str = ""


class TurnHooks(Protocol):
    """The user's hooks around one turn."""

    def prompt_submitted(self, prompt: str) -> PromptVerdict:
        """Before the prompt joins the conversation (``UserPromptSubmit``)."""
        ...

    def about_to_stop(self, answer: str, again: bool) -> str | None:
        """Before the final answer is accepted (``Stop``): a reason to go on working, or None.
        ``again`` is true when an earlier Stop hook already sent the agent back to work."""
        ...

    def halted(self) -> str | None:
        """Why a hook stopped the agent (Claude Code's ``continue: false``), or None."""
        ...
