"""How one user turn ended: the answer (or why not), the stop reason and the model turns used."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["RunResult", "StopReason"]

StopReason = Literal["final", "max_turns", "interrupted", "error"]


@dataclass
class RunResult:
    """How one user turn ended: the answer (or why not), the stop reason and the model turns used."""

    result: str
    stop_reason: StopReason
    num_turns: int
    error: str | None = None
