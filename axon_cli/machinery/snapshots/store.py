"""A project's snapshots: its shadow repository and the log of turns, in axon's user state dir.

``$XDG_STATE_HOME/axon/snapshots/<project name>-<hash of its path>/`` holds ``git/`` (the shadow
repository), ``turns.json`` (one record per turn that changed files: the tree before its first
change and its modes, the tree and modes when it ended, the files it changed, whether it was undone)
and ``lock`` (one process at a time: several sessions may work in one project). Each record's trees
and modes are kept by refs (``refs/axon/<id>/before|after|before-modes|after-modes``); the oldest
records beyond ``MAX_RECORDS`` are dropped. A record whose id or object names are not what axon
writes is left out (they reach git's command line).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from axon_cli.kernel.state import atomic_write, user_state_dir
from axon_cli.machinery.masking.written import masked_text
from axon_cli.machinery.snapshots.basics import MB, SnapshotError, find_git

if TYPE_CHECKING:
    from axon_cli.machinery.snapshots.shadow import ShadowRepo, Snapshot

__all__ = ["ProjectSnapshots", "Record", "MAX_RECORDS", "MAX_LISTED_FILES"]

MAX_RECORDS = 100
MAX_LISTED_FILES = 50
Record = dict[str, Any]
SIDES = ("before", "after", "before-modes", "after-modes")
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,120}")
_OID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_thread_locks: dict[str, threading.Lock] = {}
_registry_lock = threading.Lock()


def project_dir(root: Path) -> Path:
    real = os.path.realpath(root)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in os.path.basename(real))[:40] or "root"
    return user_state_dir() / "snapshots" / f"{name}-{digest}"


class ProjectSnapshots:
    def __init__(self, root: Path, max_file_mb: float = 10.0, max_new_mb: float = 50.0,
                 enabled: bool = True) -> None:
        self.root = Path(os.path.realpath(root))
        self.dir = project_dir(self.root)
        self.enabled = enabled
        self._limits = (int(max_file_mb * MB), int(max_new_mb * MB))
        self._repo: ShadowRepo | None = None
        self._repo_lock = threading.Lock()

    @property
    def repo(self) -> ShadowRepo:
        """The shadow repository; its machinery (``shadow``) is imported on first use, not at start-up."""
        with self._repo_lock:
            if self._repo is None:
                from axon_cli.machinery.snapshots.shadow import ShadowRepo
                self._repo = ShadowRepo(self.root, self.dir / "git", *self._limits)
            return self._repo

    @classmethod
    def for_settings(cls, root: Path, settings: Any) -> ProjectSnapshots:
        return cls(root, float(getattr(settings, "snapshot_max_file_mb", 10.0)),
                   float(getattr(settings, "snapshot_max_new_mb", 50.0)), bool(getattr(settings, "snapshots", True)))

    def unavailable(self) -> str | None:
        """Why snapshots cannot be taken here (None: they can)."""
        if not self.enabled:
            return "snapshots are off (snapshots = false)"
        if find_git() is None:
            return "git is not installed"
        return None

    def trouble(self, error: BaseException) -> str:
        """One line for a store that cannot be used (unwritable, a file in its place, a corrupted
        shadow repository): what failed, where, and what to do."""
        return (f"{error} — the snapshot store {self.dir} cannot be used: make it writable, or move it aside "
                "(axon then starts a new one; the turns recorded in it can no longer be undone)")

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """One thread and one process at a time for this project."""
        import fcntl

        key = str(self.dir)
        with _registry_lock:
            thread_lock = _thread_locks.setdefault(key, threading.Lock())
        with thread_lock:
            try:
                self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
                fh = open(self.dir / "lock", "a")  # noqa: SIM115 (closed below, after the yield)
            except OSError as e:
                raise SnapshotError(f"cannot use {self.dir}: {e.strerror}") from None
            with fh:
                fcntl.flock(fh, fcntl.LOCK_EX)
                yield

    # -- the log ------------------------------------------------------------------------------
    def records(self) -> list[Record]:
        try:
            data = json.loads((self.dir / "turns.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        return [r for r in data if _well_formed(r)] if isinstance(data, list) else []

    def sessions_of_last(self, count: int) -> list[str]:
        """The sessions of the last ``count`` turns not undone yet (what ``undo count`` would touch)."""
        return [str(r["session"]) for r in [r for r in self.records() if not r.get("undone")][-count:]]

    def save(self, records: list[Record]) -> None:
        dropped = records[:-MAX_RECORDS] if len(records) > MAX_RECORDS else []
        kept = records[len(dropped):]
        atomic_write(self.dir / "turns.json", json.dumps(kept, indent=1).encode(), mode=0o600)
        if dropped:
            self.repo.keep({f"refs/axon/{r['id']}/{side}": None for r in dropped for side in SIDES})

    # -- turns --------------------------------------------------------------------------------
    def take(self) -> Snapshot:
        if (why := self.unavailable()) is not None:
            raise SnapshotError(why)
        return self.repo.snapshot()

    def start_turn(self, session: str, turn: int, prompt: str) -> tuple[Record, Snapshot]:
        """Snapshot the workspace before a turn's first change and log the turn (caller holds the lock)."""
        snap = self.take()
        record: Record = {"id": f"{session}-{turn}-{int(time.time() * 1000)}", "session": session, "turn": turn,
                          "prompt": masked_text(" ".join(prompt.split()))[:200], "at": time.time(), "before": snap.tree,
                          "after": None, "files": [], "changed": 0, "skipped": len(snap.skipped), "undone": False,
                          "before_modes": snap.modes, "after_modes": None}
        self.repo.keep({f"refs/axon/{record['id']}/before": snap.tree,
                        f"refs/axon/{record['id']}/before-modes": snap.modes})
        self.save([*self.records(), record])
        return record, snap

    def finish_turn(self, record_id: str) -> Record | None:
        """Snapshot the workspace as the turn left it; a turn that changed nothing is dropped."""
        records = self.records()
        record = next((r for r in records if r["id"] == record_id), None)
        if record is None:
            return None
        self.settle(record)
        if not record["changed"]:
            records.remove(record)
            self.repo.keep({f"refs/axon/{record_id}/{side}": None for side in SIDES})
        self.save(records)
        self.repo.maintain()
        return record if record["changed"] else None

    def settle(self, record: Record) -> None:
        """Fill in the turn's ``after`` tree and modes and its changed paths (now, for a turn that never
        ended). A turn that only changed modes or directories counts as a change."""
        if record.get("after"):
            return
        from axon_cli.machinery.snapshots.changes import changed_paths

        snap = self.take()
        record.update(after=snap.tree, after_modes=snap.modes)
        changes = changed_paths(self.repo, record)
        record.update(changed=len(changes), files=changes[:MAX_LISTED_FILES])
        self.repo.keep({f"refs/axon/{record['id']}/after": snap.tree,
                        f"refs/axon/{record['id']}/after-modes": snap.modes})

    def uncovered_now(self, paths: list[str]) -> dict[str, str]:
        """Which of ``paths`` a snapshot taken now could not restore (``axon permissions check``)."""
        from axon_cli.machinery.snapshots.coverage import uncovered

        with self.locked():
            snap = self.take()
            return uncovered(self.repo, snap.skipped, paths)

    def mark_undone(self, record_id: str) -> None:
        records = self.records()
        for r in records:
            if r["id"] == record_id:
                r["undone"] = True
        self.save(records)


def _well_formed(record: Any) -> bool:
    """A record as axon writes it: its id and object names are safe on git's command line."""
    if not isinstance(record, dict) or not isinstance(record.get("id"), str) or not _ID.fullmatch(record["id"]):
        return False
    if not isinstance(record.get("before"), str) or not _OID.fullmatch(record["before"]):
        return False
    if not all(record.get(k) is None or (isinstance(record[k], str) and _OID.fullmatch(record[k]))
               for k in ("after", "before_modes", "after_modes")):
        return False
    files = record.get("files", [])
    return (isinstance(record.get("session"), str) and isinstance(record.get("turn"), int)
            and isinstance(files, list) and all(isinstance(f, str) for f in files))
