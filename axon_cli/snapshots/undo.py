"""Undo: put back what a turn changed, file by file, unless someone changed the file since.

For each path that differs between a turn's ``before`` and ``after`` trees: a file the turn
created is removed (and the directories that became empty and did not exist before), a file it
deleted or modified gets its old content and executable bit back. A path whose current state is
not what the turn left (someone changed it after the turn) is left as it is and reported.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from axon_cli.snapshots.shadow import Entry, blob_id
from axon_cli.snapshots.store import ProjectSnapshots, Record
from axon_cli.state import _existing_mode, _umask, atomic_write

__all__ = ["Outcome", "UndoReport", "undo_turns", "list_lines"]

CHANGED_SINCE = "changed after that turn (left as it is)"


@dataclass(frozen=True)
class Outcome:
    action: str                       # "restored" | "deleted" | "skipped"
    path: str                         # relative to the project root
    note: str = ""

    def line(self) -> str:
        return f"  {self.action} {self.path}" + (f": {self.note}" if self.action == "skipped" else
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


def _current(path: Path) -> Entry | None | str:
    """The path's state as a tree entry, None when absent, "other" for a directory or device."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            return Entry("120000", blob_id(os.fsencode(os.readlink(path))))
        if not stat.S_ISREG(st.st_mode):
            return "other"
        with open(path, "rb") as fh:
            return Entry("100755" if st.st_mode & 0o111 else "100644", blob_id(fh.read()))
    except FileNotFoundError:
        return None
    except OSError:
        return "other"


def _write(path: Path, entry: Entry, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if entry.mode == "120000":
        if os.path.lexists(path):
            os.unlink(path)
        os.symlink(os.fsdecode(data), path)
        return
    mode = _existing_mode(path) if not os.path.islink(path) else 0o666 & ~_umask()
    mode = mode | (0o111 & ~_umask()) if entry.mode == "100755" else mode & ~0o111
    atomic_write(path, data, mode=mode)


def _prune(root: Path, rel: str, keep: set[str]) -> None:
    """Remove the empty directories above ``rel`` that the ``before`` tree did not have."""
    parent = os.path.dirname(rel)
    while parent and parent not in keep:
        try:
            os.rmdir(root / parent)
        except OSError:
            return
        parent = os.path.dirname(parent)


def undo_record(store: ProjectSnapshots, record: Record) -> list[Outcome]:
    """Undo one turn (caller holds the lock); what happened to each path the turn changed."""
    repo, root = store.repo, store.root
    store.settle(record)
    outcomes: list[Outcome] = []
    removals: list[str] = []
    writes: list[tuple[str, Entry]] = []
    for rel, old, new in repo.diff(record["before"], record["after"]):
        if _current(root / rel) != new:
            outcomes.append(Outcome("skipped", rel, CHANGED_SINCE))
        elif old is None:
            removals.append(rel)
        else:
            writes.append((rel, old))
    keep = repo.dirs(record["before"]) if removals else set()
    for rel in removals:
        try:
            os.unlink(root / rel)
        except FileNotFoundError:
            pass
        except OSError as e:
            outcomes.append(Outcome("skipped", rel, f"cannot remove it ({e.strerror})"))
            continue
        _prune(root, rel, keep)
        outcomes.append(Outcome("deleted", rel, "created in that turn"))
    blobs = repo.blobs(sorted({entry.oid for _rel, entry in writes}))
    for rel, entry in writes:
        if entry.oid not in blobs:
            outcomes.append(Outcome("skipped", rel, "its old content is missing from the snapshot"))
            continue
        try:
            _write(root / rel, entry, blobs[entry.oid])
        except OSError as e:
            outcomes.append(Outcome("skipped", rel, f"cannot restore it ({e.strerror})"))
            continue
        outcomes.append(Outcome("restored", rel))
    return sorted(outcomes, key=lambda o: o.path)


def undo_turns(store: ProjectSnapshots, count: int = 1) -> list[UndoReport]:
    """Undo the last ``count`` turns not undone yet, newest first."""
    reports: list[UndoReport] = []
    with store.locked():
        for _ in range(count):
            records = store.records()
            pending = [r for r in records if not r.get("undone")]
            if not pending:
                break
            record = pending[-1]
            outcomes = undo_record(store, record)
            record["undone"] = True
            store.save(records)
            reports.append(UndoReport(record, outcomes))
    return reports


def list_lines(store: ProjectSnapshots) -> list[str]:
    """``axon undo --list``: the turns that can be undone, newest first, numbered as ``axon undo N``."""
    pending = [r for r in store.records() if not r.get("undone")][::-1]
    if not pending:
        return ["nothing to undo: no turn in this project changed files (or all were undone)"]
    lines = []
    for n, r in enumerate(pending, 1):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.get("at", 0)))
        files = ", ".join(r.get("files", [])[:5]) + (" …" if r.get("changed", 0) > 5 else "")
        lines.append(f"{n:>3}. {when}  session {r['session']} turn {r['turn']}: {r.get('prompt', '')[:60]}")
        lines.append(f"       {r.get('changed', 0)} file(s): {files}")
    return lines

