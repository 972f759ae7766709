"""Which files changed during this session: the question to ask before running a project file outside
the sandbox (the model may have written it inside).

``SessionChanges`` is made when the session starts. ``remember(paths)`` records the content of files
that matter (a hook's script) right then; ``changed(paths)`` answers for any absolute paths:

- a path remembered at the start (or first seen untouched, below) is changed when its bytes differ
  now (created, rewritten, replaced by a link, deleted);
- any other path is changed when its inode, or a symbolic link on the way to it, changed since the
  session started (its ctime, which no process can set back: ``touch -d`` moves mtime only), i.e. it
  was created, written, renamed or linked into place during the session. Otherwise its content now
  is its content at the start, and is remembered as such ("hashing on first sight").

``accept(paths)`` takes the current content as the new starting point (the user approved running it).
Not covered: a file that was in place before the session and reached its path by renaming a
*directory* above it (the file's own inode is untouched); and what ran in an earlier process of a
resumed session (the trust record pins project files across sessions).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from axon_cli.settings.trust.pins import digest_of

__all__ = ["SessionChanges", "CLOCK_SLACK_NS"]

# File timestamps come from the kernel's coarse clock, which may lag time.time() by a tick or two:
# the session counts as started a little earlier, so a change right after the start is never missed.
CLOCK_SLACK_NS = 50_000_000


class SessionChanges:
    def __init__(self, started_ns: int | None = None) -> None:
        self.started_ns = (time.time_ns() if started_ns is None else started_ns) - CLOCK_SLACK_NS
        self._start: dict[str, str] = {}        # absolute path -> digest at the start (or ABSENT)
        self._lock = threading.Lock()

    def remember(self, paths: Iterable[Path | str]) -> None:
        """Record what ``paths`` hold now (call at the session's start); known paths keep their record."""
        for key in {os.path.abspath(p) for p in paths}:
            digest = digest_of(key)
            with self._lock:
                self._start.setdefault(key, digest)

    def changed(self, paths: Iterable[Path | str]) -> list[Path]:
        """Those of ``paths`` (absolute) whose content is not what it was when the session started
        (including files created during it), in the order given."""
        out: list[Path] = []
        for path in paths:
            key = os.path.abspath(path)
            now = digest_of(key)
            with self._lock:
                start = self._start.get(key)
            if start is None:
                if self._touched(key):
                    out.append(Path(path))
                    continue
                with self._lock:
                    start = self._start.setdefault(key, now)
            if start != now:
                out.append(Path(path))
        return out

    def accept(self, paths: Iterable[Path | str]) -> None:
        """What ``paths`` hold now is the new starting point (running them was approved)."""
        for key in {os.path.abspath(p) for p in paths}:
            digest = digest_of(key)
            with self._lock:
                self._start[key] = digest

    def _touched(self, path: str) -> bool:
        """Whether the file at ``path`` or a link on the way to it changed since the session started."""
        for link in _links_on_the_way(path):
            if _ctime(link, follow=False) >= self.started_ns:
                return True
        if not os.path.lexists(path):
            return False
        return max(_ctime(path, follow=False), _ctime(path, follow=True)) >= self.started_ns


def _ctime(path: str, follow: bool) -> int:
    try:
        return (os.stat(path) if follow else os.lstat(path)).st_ctime_ns
    except OSError:
        return 0


def _links_on_the_way(path: str) -> list[str]:
    """The symbolic links among ``path``'s parent directories (at most 40, as the kernel follows)."""
    links: list[str] = []
    parent = os.path.dirname(path)
    while parent and parent != os.path.dirname(parent) and len(links) < 40:
        if os.path.islink(parent):
            links.append(parent)
        parent = os.path.dirname(parent)
    return links
