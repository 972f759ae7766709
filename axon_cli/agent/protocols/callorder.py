"""A change a small model writes after a read in the same text reply waits until it has seen the read.

A 1.5B model writes ``read_file("settings.toml")`` and, in the same reply,
``write_file("out.txt", content="{{name}}")``: the change was composed before the read's
result existed, so it holds a guess or a placeholder. In a reply of text calls, a call that may
change something and comes after a read-only call is not run; the model reads ``HELD`` in its place
and makes the call again once the result is in front of it. Calls before the first read (write a
file, then read it back) run as written. Native calls (capable models, parallel calls) are never
held back: this applies to text calls only.
"""

from __future__ import annotations

from axon_cli.tools.dispatch import ToolCall
from axon_cli.tools.ledger import CallLedger, Refusal

__all__ = ["hold_blind_changes", "HELD"]

HELD = ("Error: {name} was not run: it came after {read} in the same reply, so it was written before that "
        "result was seen. The result is above now: make the {name} call again, using what it shows.")


def hold_blind_changes(calls: list[ToolCall], ledger: CallLedger) -> tuple[list[ToolCall], list[str]]:
    """The calls to run now, and an error for each change held back (noted in the ``ledger``)."""
    first_read = next((i for i, c in enumerate(calls) if ledger.read_only(c)), None)
    if first_read is None:
        return calls, []
    held = [c for c in calls[first_read + 1:] if not ledger.read_only(c)]
    for call in held:
        ledger.refuse(call, Refusal.HELD)
    read = calls[first_read].name
    return [c for c in calls if c not in held], [HELD.format(name=c.name, read=read) for c in held]
