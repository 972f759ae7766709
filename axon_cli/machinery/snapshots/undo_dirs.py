"""Undo's directories: the steps of one turn's undo that open, remove, make and close directories.

``DirectorySteps`` is the directories' half of ``undo._Undo`` (which holds the state named in it and
puts the files back): directories whose bits or existence the turn changed are opened first, top
down (owner rwx), unless someone changed them since; those the turn made are removed (deepest
first) and those it removed are made (top down) before the files are written; every one gets its
exact bits last, deepest first. Undo never writes, removes or changes bits through a symlink.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from axon_cli.machinery.snapshots.changes import Changes
from axon_cli.machinery.snapshots.permission_bits import under
from axon_cli.machinery.snapshots.report import Outcome
from axon_cli.machinery.snapshots.restore import Want, dir_bits

__all__ = ["DirectorySteps", "CHANGED_SINCE"]

CHANGED_SINCE = "changed after that turn (left as it is)"


def depth_first(rel: str) -> tuple[int, str]:
    return rel.count("/"), rel


class DirectorySteps:
    """The directories' steps of one turn's undo (see the module docstring)."""

    root: Path
    ch: Changes
    outcomes: list[Outcome]
    items: list[tuple[str, Want, Want]]
    final: dict[str, int]
    made: list[str]
    dropped: list[str]
    opened: set[str]
    rebits: set[str]

    def say(self, action: str, rel: str, note: str = "") -> None:
        self.outcomes.append(Outcome(action, rel, note))

    def say_dir(self, action: str, d: str, note: str = "") -> None:
        self.say(action, f"{d}/" if d else "./", note)

    # -- directories ------------------------------------------------------------------------------
    def _open_dirs(self) -> None:
        """Directories whose bits or existence changed, top down: open the ones to work in (owner rwx)."""
        before, after = self.ch.before, self.ch.after
        if before is None or after is None:
            return
        for d in sorted(self.ch.dirs | self.ch.locked, key=depth_first):
            if under(d, self.ch.locked):
                continue                                   # below an unlisted directory: _unlisted
            b, a, now = before.dirs.get(d), after.dirs.get(d), dir_bits(self.root / d)
            if a is None:                                  # the turn removed it (a file may stand there)
                if isinstance(now, int):
                    self.say_dir("skipped", d, CHANGED_SINCE)
                elif b is not None:
                    self.made.append(d)
                continue
            if now != a:
                self.say_dir("skipped", d, CHANGED_SINCE)
                continue
            if b is None:
                self.dropped.append(d)
            else:
                self.rebits.add(d)
            self.final[d] = a if b is None else b          # a directory that cannot be removed keeps its bits
            if (a & 0o700) == 0o700 or self._chmod(d, a | 0o700):
                self.opened.add(d)

    def _real(self, d: str) -> bool:
        """Whether directory ``d`` is not a symlink and has none above it (else it is reported): undo
        never writes, removes or changes bits through a symlink."""
        if not d or os.path.realpath(self.root / d) == str(self.root / d):
            return True
        self.say_dir("skipped", d, "it, or a directory above it, is a symlink now (left as it is)")
        return False

    def _chmod(self, d: str, bits: int) -> bool:
        if not self._real(d):
            return False
        try:
            os.chmod(self.root / d, bits)
        except OSError as e:
            self.say_dir("skipped", d, f"cannot restore it ({e.strerror})")
            return False
        return True

    def _drop_dirs(self) -> None:
        for d in sorted(set(self.dropped), key=depth_first, reverse=True):
            try:
                os.rmdir(self.root / d)
            except FileNotFoundError:
                self.final.pop(d, None)
                continue
            except OSError as e:
                self.say_dir("skipped", d, f"cannot remove it ({os.strerror(e.errno or errno.EIO)})")
                continue
            self.final.pop(d, None)
            if not self._holds_changes(d):
                self.say_dir("deleted", d, "created in that turn")

    def _make_dirs(self) -> None:
        before = self.ch.before
        for d in sorted(set(self.made), key=depth_first):
            if before is None or d not in before.dirs or not self._real(os.path.dirname(d)):
                continue
            try:
                os.makedirs(self.root / d, mode=0o700, exist_ok=True)
            except OSError as e:
                self.say_dir("skipped", d, f"cannot restore it ({e.strerror})")
                continue
            self.final[d] = before.dirs[d]
            if not self._holds_changes(d):
                self.say_dir("restored", d)

    def _close_dirs(self) -> None:
        for d, bits in sorted(self.final.items(), key=lambda i: depth_first(i[0]), reverse=True):
            if not self._real(d):
                continue
            try:
                os.chmod(self.root / d, bits)
            except OSError as e:
                self.say_dir("skipped", d, f"cannot restore it ({e.strerror})")
                continue
            if d in self.rebits:
                self.say_dir("restored", d)

    def _holds_changes(self, d: str) -> bool:
        return any(rel.startswith(f"{d}/") for rel, _e, _t in self.items)
