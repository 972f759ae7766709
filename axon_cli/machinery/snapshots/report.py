"""What an undo reports: one line per path it restored, deleted or left (``axon undo --list`` is
``app/reports/undo_report.py``).

Names that are not valid UTF-8 are shown with their bytes escaped (``modes.shown``), so printing a
report, or telling the session about it, never fails.
"""

from __future__ import annotations

from dataclasses import dataclass

from axon_cli.machinery.snapshots.permission_bits import shown
from axon_cli.machinery.snapshots.store import Record

__all__ = ["Outcome", "UndoReport"]


@dataclass(frozen=True)
class Outcome:
    action: str                       # "restored" | "deleted" | "skipped"
    path: str                         # relative to the project root (a directory ends in "/")
    note: str = ""

    def line(self) -> str:
        return f"  {self.action} {shown(self.path)}" + (f": {self.note}" if self.action == "skipped" else
                                                        f" ({self.note})" if self.note else "")


@dataclass
class UndoReport:
    record: Record
    outcomes: list[Outcome]

    def lines(self, session: str | None = None) -> list[str]:
        r = self.record
        whose = "" if session == r["session"] else f" of session {r['session']}"
        head = f"undo of turn {r['turn']}{whose}:"
        body = [o.line() for o in self.outcomes] or ["  no file had changed"]
        return [head, *body]
