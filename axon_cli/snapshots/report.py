"""What an undo reports: one line per path it restored, deleted or left, and ``axon undo --list``.

Names that are not valid UTF-8 are shown with their bytes escaped (``modes.shown``), so printing a
report, or telling the session about it, never fails.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from axon_cli.snapshots.modes import shown
from axon_cli.snapshots.store import ProjectSnapshots, Record

__all__ = ["Outcome", "UndoReport", "list_lines"]


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



def list_lines(store: ProjectSnapshots) -> list[str]:
    """``axon undo --list``: the turns that can be undone, newest first, numbered as ``axon undo N``."""
    pending = [r for r in store.records() if not r.get("undone")][::-1]
    if not pending:
        return ["nothing to undo: no turn in this project changed files (or all were undone)"]
    lines = []
    for n, r in enumerate(pending, 1):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.get("at", 0)))
        files = ", ".join(shown(f) for f in r.get("files", [])[:5]) + (" …" if r.get("changed", 0) > 5 else "")
        lines.append(f"{n:>3}. {when}  session {r['session']} turn {r['turn']}: {r.get('prompt', '')[:60]}")
        lines.append(f"       {r.get('changed', 0)} file(s): {files}")
    return lines
