"""No idle loops: a call repeated with identical arguments while nothing else changed.

Small models re-read the same file or re-run the same ``ls`` turn after turn, or write the same
content to the same file again and again. The first two runs of an identical call go through (a
re-check can be sensible); from the third, while no other call that may change something has
succeeded in between, the call is not run again and the model reads ``ALREADY_HAVE`` instead.
After ``MAX_REFUSALS`` such refusals in one user turn the run stops (``STOPPED``), as an error: the
model is not making progress. The wording is in ``prompts/guidance_repeats.md``.

Which calls are read-only is the tool's own fact for its input (``bash("ls")`` is, ``bash("rm x")``
is not): a successful call that may change something starts every other call's count afresh, its
own included only when it differs. A call that failed is never counted (the loop guard in
``loop/agent.py`` counts failures).
"""

from __future__ import annotations

from axon_cli.prompts import load_sections
from axon_cli.protocols.callfacts import call_key, read_only_call
from axon_cli.tools.dispatch import CallResult, ToolCall
from axon_cli.tools.registry import ToolRegistry

__all__ = ["RepeatGuard", "ALREADY_HAVE", "STOPPED", "MAX_RUNS", "MAX_REFUSALS"]

MAX_RUNS = 2            # identical runs allowed while nothing else changes; the next is refused
MAX_REFUSALS = 3        # refusals in one user turn before the run stops
_TEXT = load_sections("guidance_repeats.md")
ALREADY_HAVE = _TEXT["already-have"]
STOPPED = _TEXT["stopped"]


class RepeatGuard:
    """One user turn's record of identical successful calls since the last other change."""

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry
        self._runs: dict[str, int] = {}
        self._refused: set[str] = set()      # ids of the calls answered with ALREADY_HAVE
        self.refusals = 0

    @property
    def stopped(self) -> bool:
        return self.refusals >= MAX_REFUSALS

    def refusal(self, call: ToolCall) -> str | None:
        """The answer instead of running ``call``, or None to run it."""
        n = self._runs.get(call_key(call), 0)
        if n < MAX_RUNS:
            return None
        self.refusals += 1
        self._refused.add(call.id)
        return ALREADY_HAVE.format(name=call.name, n=n)

    def record(self, call: ToolCall, result: CallResult) -> bool:
        """After a call: count a successful run; one that may change something starts every other
        call's count afresh. True when the call was a refused repeat."""
        if call.id in self._refused:
            return True
        if not result.ok:
            return False
        key = call_key(call)
        runs = self._runs.get(key, 0) + 1
        if not self.read_only(call):
            self._runs.clear()
        self._runs[key] = runs
        return False

    def stop_message(self) -> str:
        return STOPPED.format(n=self.refusals)

    def read_only(self, call: ToolCall) -> bool:
        return read_only_call(self.registry, call)

