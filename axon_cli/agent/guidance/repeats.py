"""No idle loops: a call repeated with identical arguments while nothing else changed.

Small models re-read the same file or re-run the same ``ls`` turn after turn, or write the same
content to the same file again and again. The first two runs of an identical call go through (a
re-check can be sensible); from the third, while no other call that may change something has
succeeded in between, the call is not run again and the model reads ``ALREADY_HAVE`` instead.
After ``MAX_REFUSALS`` such refusals in one user turn the run stops (``STOPPED``), as an error: the
model is not making progress. The wording is in ``kernel/prompts/guidance_repeats.md``.

Which calls are read-only is the tool's own fact for its input (``bash("ls")`` is, ``bash("rm x")``
is not): a successful call that may change something starts every other call's count afresh, its
own included only when it differs. A call that failed is never counted (the loop guard in
``agent/loop/agent.py`` counts failures). The counts are the agent's one call ledger (``tools/ledger``).
"""

from __future__ import annotations

from axon_cli.kernel.prompts import load_sections
from axon_cli.tools.calls import ToolCall
from axon_cli.tools.ledger import CallLedger, Refusal

__all__ = ["RepeatGuard", "ALREADY_HAVE", "STOPPED", "MAX_RUNS", "MAX_REFUSALS"]

MAX_RUNS = 2            # identical runs allowed while nothing else changes; the next is refused
MAX_REFUSALS = 3        # refusals in one user turn before the run stops
_TEXT = load_sections("guidance_repeats.md")
ALREADY_HAVE = _TEXT["already-have"]
STOPPED = _TEXT["stopped"]


class RepeatGuard:
    """The repeat rule over the agent's call ledger (``tools/ledger``), for one user turn."""

    def __init__(self, ledger: CallLedger) -> None:
        self.ledger = ledger

    @property
    def refusals(self) -> int:
        return self.ledger.refusals(Refusal.REPEATED)

    @property
    def stopped(self) -> bool:
        return self.refusals >= MAX_REFUSALS

    def refusal(self, call: ToolCall) -> str | None:
        """The answer instead of running ``call``, or None to run it."""
        n = self.ledger.runs(call)
        if n < MAX_RUNS:
            return None
        self.ledger.refuse(call, Refusal.REPEATED)
        return ALREADY_HAVE.format(name=call.name, n=n)

    def stop_message(self) -> str:
        return STOPPED.format(n=self.refusals)
