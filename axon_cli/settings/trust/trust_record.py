"""The trust record: which widening items the user trusted, per folder, in the user's state dir.

``$XDG_STATE_HOME/axon/trust.json`` (default ``~/.local/state/axon/trust.json``), never in a project::

    {"version": 1, "folders": {"/real/path": {"updated": "2025-01-31T12:00:00",
                                              "items": {"allow:bash(ls)": {"digest": "…", "shows": "…"}}}}}

A hook or MCP server that runs project files also keeps ``"pins": {"scripts/check.sh": "<sha256>"}``
(already part of its digest), so that a change can name the file that changed.

Writes are atomic (temp file, fsync, rename) and made under an exclusive lock (``trust.lock``), so two
axon processes trusting at once each keep their change. A missing record is an empty one; an
unreadable one counts as empty too (one line says so) and is set aside as ``trust.json.corrupt`` the
next time something is trusted.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from axon_cli.kernel.errors import ConfigError
from axon_cli.kernel.state import atomic_write, user_state_dir
from axon_cli.settings.trust.items import WideningItem

__all__ = ["TrustStore", "Approved", "Record", "trust_state_dir", "folder_key"]

VERSION = 1
MAX_RECORD_BYTES = 64 * 1024 * 1024   # far beyond any real record; a larger file is not read


@dataclass(frozen=True)
class Approved:
    digest: str
    shows: str      # what the user was shown when trusting it (to say what changed since)
    pins: tuple[tuple[str, str], ...] = ()   # the files it was pinned to then (to name the one that changed)

    @classmethod
    def of(cls, item: WideningItem) -> Approved:
        return cls(item.digest, item.shows, item.pins)


Record = dict[str, Approved]          # item id -> what was trusted


def trust_state_dir() -> Path:
    return user_state_dir()


def folder_key(root: Path) -> str:
    return os.path.realpath(root)


def _record(raw: object) -> Record:
    items = raw.get("items") if isinstance(raw, dict) else None
    out: Record = {}
    for item_id, entry in (items.items() if isinstance(items, dict) else []):
        if isinstance(entry, dict) and isinstance(entry.get("digest"), str):
            out[str(item_id)] = Approved(entry["digest"], str(entry.get("shows", "")), _pins(entry.get("pins")))
    return out


def _pins(raw: object) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, dict):
        return ()
    return tuple((str(rel), str(digest)) for rel, digest in raw.items())


def _entry(approved: Approved) -> dict[str, object]:
    entry: dict[str, object] = {"digest": approved.digest, "shows": approved.shows}
    if approved.pins:
        entry["pins"] = dict(approved.pins)
    return entry


class TrustStore:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or trust_state_dir() / "trust.json"

    def _load(self) -> tuple[dict[str, dict[str, object]], str | None]:
        """Every folder's raw entry, and a line saying why the file could not be used (or None)."""
        from axon_cli.kernel.loaders import BadFile, load_json

        if not self.path.exists():
            return {}, None
        try:
            data = load_json(self.path, MAX_RECORD_BYTES)
        except BadFile as e:
            what = {"syntax": "the trust record is not valid JSON",
                    "depth": "the trust record is nested too deeply"}.get(e.kind, "cannot read the trust record")
            return {}, f"{self.path}: {what} ({e.reason}); every folder counts as untrusted"
        folders = data.get("folders") if isinstance(data, dict) else None
        if not isinstance(folders, dict):
            return {}, f"{self.path}: the trust record has no \"folders\" object; every folder counts as untrusted"
        return folders, None

    def folder(self, root: Path) -> tuple[Record, str | None]:
        folders, problem = self._load()
        return _record(folders.get(folder_key(root))), problem

    def folders(self) -> tuple[list[tuple[str, Record, str]], str | None]:
        """Every trusted folder: its path, its record and when it was last changed."""
        folders, problem = self._load()
        out = [(path, _record(raw), str(raw.get("updated", "")) if isinstance(raw, dict) else "")
               for path, raw in sorted(folders.items())]
        return [entry for entry in out if entry[1]], problem

    def update(self, root: Path, change: Callable[[Record], Record]) -> Record:
        """Apply ``change`` to the folder's record under the lock; an empty result forgets the folder."""
        key = folder_key(root)
        try:
            with self._locked():
                folders, problem = self._load()
                if problem is not None and self.path.exists():
                    os.replace(self.path, self.path.with_name(self.path.name + ".corrupt"))
                record = change(_record(folders.get(key)))
                if record:
                    folders[key] = {"updated": time.strftime("%Y-%m-%dT%H:%M:%S"), "items": {
                        item_id: _entry(a) for item_id, a in sorted(record.items())}}
                else:
                    folders.pop(key, None)
                text = json.dumps({"version": VERSION, "folders": folders}, indent=1, ensure_ascii=False)
                atomic_write(self.path, text.encode("utf-8") + b"\n", mode=0o600)
        except OSError as e:
            raise ConfigError(f"cannot write the trust record {self.path}: {e.strerror or e}") from None
        return record

    def keep(self, root: Path, items: Iterable[WideningItem]) -> Record:
        """Add ``items`` (as they are now) to what the folder trusts."""
        new = {i.id: Approved.of(i) for i in items}
        return self.update(root, lambda record: {**record, **new})

    def replace(self, root: Path, items: Iterable[WideningItem]) -> Record:
        """The folder trusts exactly ``items`` (what it holds now); entries for anything else go."""
        new = {i.id: Approved.of(i) for i in items}
        return self.update(root, lambda record: new)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path.with_name("trust.lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                import fcntl
            except ImportError:  # pragma: no cover - not Unix: atomic replace only
                yield
                return
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)
