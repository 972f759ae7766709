"""A bounded directory walk that remembers what it saw, for searches run before every sandboxed command.

``Scan(root, wanted, …).run()`` lists the entries under ``root`` that ``wanted`` picks (by name and
``os.DirEntry``), skipping directories by name, below a depth, past an entry count or a time cap.
The walk keeps each directory's mtime and what it held: the next run stats the directories it knows
and lists again only those whose mtime changed (a created, removed or renamed entry changes its
directory's mtime), so a tree of 50 000 files costs a few milliseconds after the first walk. A
directory changed within the last ``RACY_SECONDS`` is listed again every time (an mtime is coarse:
two changes in one tick look like one).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

__all__ = ["Scan", "scan_cached"]

RACY_SECONDS = 2.0
Wanted = Callable[[os.DirEntry[str]], bool]


@dataclass
class _Dir:
    mtime_ns: int
    subdirs: list[str]
    found: list[str]
    entries: int


@dataclass
class Scan:
    root: str
    wanted: Wanted
    skip_names: Collection[str] = ()          # directory names never entered
    skip_paths: Collection[str] = ()          # directories never entered (real paths)
    max_depth: int = 64
    max_entries: int = 200_000
    max_seconds: float = 1.0
    descend_wanted: bool = False              # enter a wanted directory too
    _dirs: dict[str, _Dir] = field(default_factory=dict)
    complete: bool = True                     # the last run saw everything it was allowed to

    def run(self) -> list[str]:
        """The wanted entries' paths (as found under ``root``), shallow first."""
        deadline = time.monotonic() + self.max_seconds
        seen: dict[str, _Dir] = {}
        found: list[str] = []
        entries = 0
        self.complete = True
        level = [self.root]
        for _depth in range(self.max_depth + 1):
            below: list[str] = []
            for path in level:
                if entries > self.max_entries or time.monotonic() > deadline:
                    self.complete = False
                    break
                info = self._listing(path)
                if info is None:
                    continue
                seen[path] = info
                entries += info.entries
                found += info.found
                below += info.subdirs
            if not below or not self.complete:
                break
            level = below
        else:
            self.complete = False
        self._dirs = seen
        return found

    def _listing(self, path: str) -> _Dir | None:
        try:
            mtime = os.stat(path, follow_symlinks=False).st_mtime_ns
        except OSError:
            return None
        known = self._dirs.get(path)
        if known is not None and known.mtime_ns == mtime and time.time_ns() - mtime > RACY_SECONDS * 1e9:
            return known
        subdirs: list[str] = []
        found: list[str] = []
        count = 0
        try:
            with os.scandir(path) as it:
                for entry in it:
                    count += 1
                    picked = self._wanted(entry)
                    if picked:
                        found.append(entry.path)
                    if (not picked or self.descend_wanted) and self._enter(entry):
                        subdirs.append(entry.path)
        except OSError:
            return None
        return _Dir(mtime, subdirs, found, count)

    def _wanted(self, entry: os.DirEntry[str]) -> bool:
        try:
            return self.wanted(entry)
        except OSError:
            return False

    def _enter(self, entry: os.DirEntry[str]) -> bool:
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            return False
        return is_dir and entry.name not in self.skip_names and entry.path not in self.skip_paths


_scans: dict[tuple[object, ...], Scan] = {}


def scan_cached(key: tuple[object, ...], make: Callable[[], Scan]) -> Scan:
    """The ``Scan`` kept under ``key`` in this process (made on first use), so its next run is cheap."""
    scan = _scans.get(key)
    if scan is None:
        scan = _scans[key] = make()
    return scan
