"""One ledger of an agent's calls: how each ended, and why one was refused.

Every rule that answers a call instead of running it reads and writes this one record, with a
``Refusal`` saying which rule it was: the loop's guard against a call failing the same way again
and again (``LOOPING``) or cut off mid-arguments (``CUT``), the guidance's guard against an
identical successful call repeated while nothing changed (``REPEATED``), and, for calls written as
text, an edit already applied this user turn (``APPLIED``) and a change written after a read in
the same reply (``HELD``). Failures count over the session until a change succeeds; runs, applied
edits and refusals count per user turn (``new_turn``).
"""

from __future__ import annotations

import threading
from enum import Enum
from typing import TYPE_CHECKING

from axon_cli.tools.calls import ToolCall, prepared

if TYPE_CHECKING:
    from axon_cli.tools.dispatch import CallResult
    from axon_cli.tools.registry import ToolRegistry

__all__ = ["CallLedger", "Refusal"]


class Refusal(str, Enum):
    CUT = "cut off by the token limit in its arguments"
    LOOPING = "the same call failed the same way before"
    REPEATED = "identical to earlier runs while nothing else changed"
    APPLIED = "an edit already applied in this user turn"
    HELD = "a change written after a read in the same reply, before its result was seen"


class CallLedger:
    """The record; the agent owns it and hands it to its protocol and its guidance."""

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry
        self._lock = threading.Lock()
        self._failures: dict[str, int] = {}     # call identity → failures since a change last succeeded
        self.new_turn()

    def new_turn(self) -> None:
        """A user turn begins: runs, applied edits and refusals start afresh (failures carry on)."""
        with self._lock:
            self._runs: dict[str, int] = {}      # identity → successful runs since another change
            self._answers: dict[str, int] = {}   # identity → hash of what its last run returned
            self._applied: set[str] = set()      # identities of edits applied this turn
            self._refused: dict[str, Refusal] = {}      # call id → why it was answered instead of run
            self._counts: dict[Refusal, int] = {}         # refusals of this turn, by why

    # -- refusals ---------------------------------------------------------------------------------
    def refuse(self, call: ToolCall, why: Refusal) -> None:
        with self._lock:
            self._refused[call.id] = why
            self._counts[why] = self._counts.get(why, 0) + 1

    def refused(self, call: ToolCall) -> Refusal | None:
        return self._refused.get(call.id)

    def refusals(self, why: Refusal) -> int:
        """How many times in this user turn a call was refused for ``why``."""
        return self._counts.get(why, 0)

    # -- what calls did ---------------------------------------------------------------------------
    def failures(self, call: ToolCall) -> int:
        return self._failures.get(call.key, 0)

    def runs(self, call: ToolCall) -> int:
        return self._runs.get(call.key, 0)

    def applied(self, call: ToolCall) -> bool:
        return call.key in self._applied

    def read_only(self, call: ToolCall) -> bool:
        known = prepared(self.registry, call)
        return known is not None and known.facts.read_only

    def record(self, call: ToolCall, result: CallResult) -> None:
        """A call came back. A repeat answered instead of running counts neither as a run nor as a
        failure; a success that may change something (any but a file read) clears the failures, and
        one that is not read-only starts every other call's run count afresh. A run that answered
        differently from the call's last run (``bash_output`` of a job that printed more) counts as
        its first."""
        if self._refused.get(call.id) is Refusal.REPEATED:
            return
        spec = self.registry.get(call.name)
        key = call.key
        with self._lock:
            if not result.ok:
                self._failures[key] = self._failures.get(key, 0) + 1
                return
            if spec is None or spec.category != "read":
                self._failures.clear()
            answer = hash(result.content)
            same = self._answers.get(key, answer) == answer
            self._answers[key] = answer
            runs = self._runs.get(key, 0) + 1 if same else 1   # a new answer (a job's output): not idle
            if not self.read_only(call):
                self._runs.clear()
            self._runs[key] = runs
            if spec is not None and spec.category == "edit":
                self._applied.add(key)
