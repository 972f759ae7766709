"""What one prompt of an SDK session comes back as: ``Result``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from axon_cli.kernel.events import Event

__all__ = ["Result"]


@dataclass(frozen=True)
class Result:
    """The answer to one prompt: ``result`` (the final answer, or why there is none), ``is_error``,
    ``stop_reason`` (final | error | max_turns | interrupted), ``session_id``, ``num_turns`` (model
    requests), ``usage`` (this prompt's tokens; None when the server did not report them),
    ``changed_files`` (project-relative paths the prompt's tool calls changed) and ``events`` (every
    event of the prompt, as ``stream-json`` prints them)."""

    result: str
    is_error: bool
    stop_reason: str
    session_id: str
    num_turns: int
    usage: dict[str, int] | None
    changed_files: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"result": self.result, "is_error": self.is_error, "stop_reason": self.stop_reason,
                "session_id": self.session_id, "num_turns": self.num_turns, "usage": self.usage,
                "changed_files": list(self.changed_files)}
