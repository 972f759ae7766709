"""The session's side of snapshots: one per turn, taken before the turn's first change.

Dispatch calls ``before_change`` before a file tool writes or a bash command that is not
read-only runs; the first call of a turn snapshots the workspace and logs the turn. When the turn
ends, the workspace is snapshotted again (what the turn left, to notice later changes by someone
else). ``uncovered`` answers the permission policy's question "could undo bring these back?".
"""

from __future__ import annotations

import threading
from pathlib import Path

from axon_cli.machinery.snapshots.basics import Checkpointer, SnapshotError
from axon_cli.machinery.snapshots.store import ProjectSnapshots, Record

__all__ = ["TurnSnapshots"]


class TurnSnapshots(Checkpointer):
    def __init__(self, store: ProjectSnapshots, session_id: str) -> None:
        self.store = store
        self.session_id = session_id
        self.turn = 0
        self.prompt = ""
        self._record: Record | None = None
        self._skipped: dict[str, str] = {}
        self._failed: str | None = None
        self._lock = threading.Lock()

    def begin_turn(self, turn: int, prompt: str = "") -> None:
        with self._lock:
            self.turn, self.prompt = turn, prompt
            self._record, self._skipped, self._failed = None, {}, None

    def _ensure(self) -> None:
        """The turn's snapshot, taken on first need (caller holds ``self._lock``)."""
        if self._record is not None:
            return
        if self._failed is not None:
            raise SnapshotError(self._failed)
        try:
            with self.store.locked():
                self._record, snap = self.store.start_turn(self.session_id, self.turn, self.prompt)
        except (SnapshotError, OSError) as e:
            self._failed = self.store.trouble(e)
            raise SnapshotError(self._failed) from None
        self._skipped = snap.skipped

    def before_change(self, paths: list[Path]) -> None:
        with self._lock:
            self._ensure()

    def uncovered(self, paths: list[str]) -> dict[str, str]:
        from axon_cli.machinery.snapshots.coverage import uncovered

        with self._lock:
            try:
                self._ensure()
                with self.store.locked():
                    return uncovered(self.store.repo, self._skipped, paths)
            except (SnapshotError, OSError) as e:
                return {p: f"cannot be checked (the snapshot failed: {e})" for p in paths}

    def end_turn(self) -> None:
        with self._lock:
            record, self._record = self._record, None
            if record is not None:
                with self.store.locked():
                    self.store.finish_turn(record["id"])
