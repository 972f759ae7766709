"""Undo: put back what a turn changed — content, permission bits, symlinks, directories — unless
someone changed the path since.

For each path that differs between a turn's ``before`` and ``after`` snapshots (``changes``): a
file the turn created is removed, a file it deleted or modified gets its old content and exact
permission bits back (a symlink its exact target, as a link), a directory it removed comes back
with its bits, one it made is removed, one whose bits it changed gets them back. A path whose
current state is not what the turn left (someone changed it after the turn) is left as it is and
reported. A directory that became unlistable during the turn is opened and everything below it
put back as it was before. Order: directories whose bits changed are opened first (owner rwx),
then files and directories are removed, directories made, files written, and the directories'
exact bits set last, deepest first.
"""

from __future__ import annotations

import os
from pathlib import Path

from axon_cli.machinery.snapshots.changes import Changes, compare, tree_entries
from axon_cli.machinery.snapshots.permission_bits import under, walk
from axon_cli.machinery.snapshots.report import Outcome, UndoReport
from axon_cli.machinery.snapshots.restore import LINK, State, Want, dir_bits, matches, state, write
from axon_cli.machinery.snapshots.shadow import Entry
from axon_cli.machinery.snapshots.store import ProjectSnapshots, Record
from axon_cli.machinery.snapshots.undo_dirs import CHANGED_SINCE, DirectorySteps, depth_first

__all__ = ["Outcome", "UndoReport", "undo_turns"]

NOT_READ = ("was not in that turn's snapshot (unreadable, over the size cap or beyond its budget), so undo "
            "cannot bring it back")


class _Undo(DirectorySteps):
    """One turn's undo (see the module docstring); ``outcomes`` says what happened to each path."""

    def __init__(self, store: ProjectSnapshots, record: Record, changes: Changes) -> None:
        self.repo, self.root, self.record, self.ch = store.repo, store.root, record, changes
        self.outcomes: list[Outcome] = []
        self.items: list[tuple[str, Want, Want]] = []      # path, what the turn left, what was before
        self.final: dict[str, int] = {}                      # directory -> bits to set last
        self.made: list[str] = []                            # directories to make
        self.dropped: list[str] = []                         # directories to remove
        self.opened: set[str] = set()                       # directories open to work in
        self.rebits: set[str] = set()                        # directories whose bits go back
        self._before_entries: dict[str, Entry] | None = None

    def run(self) -> list[Outcome]:
        if self.ch.note:
            self.say("skipped", "(file modes)", f"not restored: {self.ch.note}")
        self._open_dirs()
        for d in sorted(self.ch.locked & self.opened, key=depth_first):
            self._unlisted(d)
        for rel, (old, new) in self.ch.files.items():
            self.items.append((rel, self._expected(rel, new), self._target(rel, old)))
        removals, writes = self._check()
        self._remove(removals)
        self._drop_dirs()
        self._make_dirs()
        self._write(writes)
        self._close_dirs()
        return sorted(set(self.outcomes), key=lambda o: (o.path, o.action))

    # -- what is expected and wanted --------------------------------------------------------------
    def _expected(self, rel: str, new: Entry | None) -> Want:
        after = self.ch.after
        if after is not None and rel in after.unreadable:
            return Want(stamp=after.unreadable[rel])
        bits = after.file_mode(rel, new.mode) if after is not None and new and new.mode != LINK else None
        return Want(new, bits, dir_ok=after is not None and rel in after.dirs)

    def _target(self, rel: str, old: Entry | None) -> Want:
        before = self.ch.before
        if before is not None and rel in before.unreadable:
            return Want(stamp=before.unreadable[rel], lost=True)
        if before is not None and under(rel, before.locked):
            return Want(lost=True)
        bits = before.file_mode(rel, old.mode) if before is not None and old and old.mode != LINK else None
        return Want(old, bits)

    # -- directories ------------------------------------------------------------------------------
    def _unlisted(self, d: str) -> None:
        """A directory the turn made unlistable, now open: everything below it goes back to ``before``."""
        before = self.ch.before
        assert before is not None
        prefix = f"{d}/"
        for sub in sorted((p for p in before.dirs if p.startswith(prefix)), key=depth_first):
            now = dir_bits(self.root / sub)
            if not isinstance(now, int):
                self.made.append(sub)
            elif now != before.dirs[sub]:
                self.rebits.add(sub)
                self.final[sub] = before.dirs[sub]
                if now & 0o700 != 0o700:
                    self._chmod(sub, now | 0o700)
        ignored = {i.rstrip("/") for i in self.repo.ignored([d])}
        found = walk(str(self.root), ignored, d)
        waiting = sorted(found.locked - {d}, key=depth_first)
        while waiting:                                     # directories the turn made and locked as well
            sub = waiting.pop(0)
            if self._chmod(sub, 0o700):
                more = walk(str(self.root), ignored, sub)
                found.dirs.update(more.dirs)
                found.files.update(more.files)
                found.links |= more.links
                waiting += sorted(more.locked - {sub}, key=depth_first)
        self.dropped += [sub for sub in found.dirs if sub not in before.dirs]
        entries = {rel: e for rel, e in self.before_entries().items() if rel.startswith(prefix)}
        for rel in entries.keys() | found.files.keys() | found.links:
            self.items.append((rel, Want(unknown=True), self._target(rel, entries.get(rel))))

    # -- files ------------------------------------------------------------------------------------
    def _check(self) -> tuple[list[str], list[tuple[str, Want, State | None | str]]]:
        removals: list[str] = []
        writes: list[tuple[str, Want, State | None | str]] = []
        for rel, expected, target in sorted(self.items, key=lambda i: i[0]):
            parent = os.path.dirname(rel)              # beyond a symlink a path does not exist (as for git)
            now = state(self.root / rel) if os.path.realpath(self.root / parent) == str(self.root / parent) else None
            if not matches(now, expected):
                self.say("skipped", rel, CHANGED_SINCE)
            elif matches(now, target):
                continue                                   # already as it was (or only a directory there)
            elif target.lost:
                self.say("skipped", rel, NOT_READ)
            elif target.entry is None:
                if isinstance(now, State):
                    removals.append(rel)
            else:
                writes.append((rel, target, now))
        return removals, writes

    def _remove(self, removals: list[str]) -> None:
        keep = self.repo.dirs(self.record["before"]) if removals and self.ch.before is None else None
        for rel in removals:
            if not self._real(os.path.dirname(rel)):
                continue
            try:
                os.unlink(self.root / rel)
            except FileNotFoundError:
                pass
            except OSError as e:
                self.say("skipped", rel, f"cannot remove it ({e.strerror})")
                continue
            if keep is not None:
                _prune(self.root, rel, keep)
            self.say("deleted", rel, "created in that turn")

    def _write(self, writes: list[tuple[str, Want, State | None | str]]) -> None:
        blobs = self.repo.blobs(sorted({t.entry.oid for _r, t, _n in writes if t.entry is not None}))
        for rel, target, now in writes:
            assert target.entry is not None
            if not self._real(os.path.dirname(rel)):
                continue
            try:
                if isinstance(now, State) and now.entry == target.entry and target.bits is not None:
                    os.chmod(self.root / rel, target.bits)      # the same content: only the bits changed
                elif target.entry.oid not in blobs:
                    self.say("skipped", rel, "its old content is missing from the snapshot")
                    continue
                else:
                    write(self.root / rel, target, blobs[target.entry.oid])
            except OSError as e:
                self.say("skipped", rel, f"cannot restore it ({e.strerror})")
                continue
            self.say("restored", rel)

    def before_entries(self) -> dict[str, Entry]:
        if self._before_entries is None:
            self._before_entries = tree_entries(self.repo, self.record["before"])
        return self._before_entries


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
    store.settle(record)
    return _Undo(store, record, compare(store.repo, record)).run()


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
