"""File checkpoints and ``/undo``.

Before axon's file tools change a file (dispatch calls ``before_change`` for "edit" tools), its
previous content — or its absence — is kept under ``.axon/checkpoints/<session>/<turn>/``:
``manifest.json`` lists each changed path once per turn (the state *before the turn*, so a file
edited twice in one turn goes back to where it started) and ``blobs/<n>`` holds the old bytes.
When the turn ends, the hash of what axon left in each file is recorded; ``undo`` restores a file
only if it still holds exactly that (someone else's later change is reported, never overwritten).
Everything is on disk, so undo works after a resume. Commands run through bash are not tracked.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from axon_cli.state import atomic_write, ensure_state_dir
from axon_cli.tools.spec import Checkpointer, FileState

__all__ = ["FileCheckpointer", "file_hash"]

MANIFEST = "manifest.json"


def file_hash(path: Path) -> str | None:
    """sha256 of the file's bytes, or None when it does not exist (or is not a regular file)."""
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


class FileCheckpointer(Checkpointer):
    def __init__(self, state_dir: Path, session_id: str, file_state: FileState | None = None) -> None:
        self.root = state_dir / "checkpoints" / session_id
        self.state_dir = state_dir
        self.file_state = file_state
        self.turn = 0
        self._lock = threading.Lock()
        self._entries: list[dict[str, Any]] = []

    # -- recording -----------------------------------------------------------------------------
    def begin_turn(self, turn: int) -> None:
        with self._lock:
            self.turn = turn
            self._entries = []

    def _turn_dir(self, turn: int) -> Path:
        return self.root / f"{turn:05d}"

    def before_change(self, path: Path) -> None:
        with self._lock:
            key = str(path)
            if any(e["path"] == key for e in self._entries):
                return
            folder = self._turn_dir(self.turn)
            ensure_state_dir(self.state_dir)
            entry: dict[str, Any] = {"path": key, "existed": False, "blob": None, "mode": None,
                                     "before": None, "after": None}
            try:
                data = path.read_bytes()
            except (FileNotFoundError, NotADirectoryError):
                data = None
            if data is not None:
                blob = f"blobs/{len(self._entries)}"
                atomic_write(folder / blob, data)
                entry.update(existed=True, blob=blob, mode=os.stat(path).st_mode & 0o7777,
                             before=hashlib.sha256(data).hexdigest())
            self._entries.append(entry)
            self._save(self.turn, {"turn": self.turn, "entries": self._entries, "done": False})

    def end_turn(self) -> None:
        """Record what axon left in every file it changed this turn."""
        with self._lock:
            if not self._entries:
                return
            _settle(self._entries)
            self._save(self.turn, {"turn": self.turn, "entries": self._entries, "done": True})

    def finish_interrupted(self) -> None:
        """A session killed mid-turn never ended its turn: take the files as axon left them."""
        for manifest in self._manifests():
            if not manifest.get("done"):
                _settle(manifest["entries"])
                manifest["done"] = True
                self._save(int(manifest["turn"]), manifest)

    def _save(self, turn: int, manifest: dict[str, Any]) -> None:
        atomic_write(self._turn_dir(turn) / MANIFEST, json.dumps(manifest, indent=1).encode())

    def _manifests(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if not self.root.is_dir():
            return out
        for folder in sorted(self.root.iterdir()):
            try:
                data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(data, dict) and data.get("entries"):
                out.append(data)
        return out

    # -- undo ----------------------------------------------------------------------------------
    def undo(self, relative: Any = str) -> list[str]:
        """Restore the files of the latest turn not yet undone; human lines saying what happened."""
        with self._lock:
            pending = [m for m in self._manifests() if not m.get("undone")]
            if not pending:
                return ["nothing to undo: axon changed no files in this session "
                        "(commands run through bash are not tracked)"]
            manifest = pending[-1]
            if not manifest.get("done"):
                _settle(manifest["entries"])
            turn = int(manifest["turn"])
            lines = [f"undo of turn {turn}:"]
            for entry in manifest["entries"]:
                lines.append(self._restore(turn, entry, relative))
            manifest["undone"] = True
            manifest["done"] = True
            self._save(turn, manifest)
            if turn == self.turn:
                self._entries = []
            return lines if len(lines) > 1 else lines + ["  no file had changed"]

    def _restore(self, turn: int, entry: dict[str, Any], relative: Any) -> str:
        path = Path(entry["path"])
        shown = relative(path)
        if file_hash(path) != entry.get("after"):
            return f"  skipped {shown}: changed since axon's edit (left as it is)"
        if self.file_state is not None:
            self.file_state.forget(path)
        if not entry["existed"]:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            return f"  deleted {shown} (axon created it)"
        data = (self._turn_dir(turn) / entry["blob"]).read_bytes()
        atomic_write(path, data, mode=entry.get("mode"))
        return f"  restored {shown}"


def _settle(entries: list[dict[str, Any]]) -> None:
    """Record each file's hash as axon left it; drop files the turn did not actually change."""
    for entry in entries:
        entry["after"] = file_hash(Path(entry["path"]))
    entries[:] = [e for e in entries if e["after"] != e.get("before")]
