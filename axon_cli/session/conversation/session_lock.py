"""One session, one writer: the process appending to ``.axon/sessions/<id>.jsonl`` holds an OS lock
(``flock``) on ``<id>.lock`` beside it. The kernel drops the lock when the process ends however it
ends, so a crashed holder never blocks anyone; the file holds the holder's pid, to name it.

A process holds a session's lock from the moment it resumes it (or first writes a new one) until it
exits; ``holder`` tells another process (``axon undo``, a second resume) whether someone does.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

__all__ = ["lock_path", "hold", "release", "holder", "held_here", "in_use_elsewhere"]

_held: dict[str, list[int]] = {}      # lock file -> [the descriptor this process holds it with, holders]
_guard = threading.Lock()


def lock_path(transcript: Path) -> Path:
    return transcript.with_suffix(".lock")


def held_here(transcript: Path) -> bool:
    return str(lock_path(transcript)) in _held


def hold(transcript: Path) -> int | None:
    """Take the session's lock (counted: each ``hold`` of this process is ended by one ``release``).
    None: taken; else the pid of the live process that holds it (0 when it cannot be read)."""
    import fcntl

    path = lock_path(transcript)
    with _guard:
        if (mine := _held.get(str(path))) is not None:
            mine[1] += 1
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _pid_in(fd)
            os.close(fd)
            return pid
        except OSError:
            os.close(fd)
            raise
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        _held[str(path)] = [fd, 1]
        return None


def release(transcript: Path) -> None:
    """End one ``hold``; the last one lets the session go (the lock file stays, empty of meaning)."""
    with _guard:
        mine = _held.get(key := str(lock_path(transcript)))
        if mine is None:
            return
        mine[1] -= 1
        if mine[1] > 0:
            return
        del _held[key]
    with contextlib.suppress(OSError):
        os.ftruncate(mine[0], 0)
    os.close(mine[0])


def holder(transcript: Path) -> int | None:
    """The pid of a live process (not this one) holding the session, None when none does (0: one
    does, its pid unknown)."""
    import fcntl

    path = lock_path(transcript)
    if str(path) in _held:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _pid_in(fd)
        except OSError:
            return None
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def in_use_elsewhere(sessions: Path, ids: list[str], doing: str) -> str | None:
    """One line when one of the sessions ``ids`` (in the folder ``sessions``) is held by another live
    process: ``doing`` it from here would change that session under it. None: none is."""
    for sid in sorted(set(ids)):
        if sid and (pid := holder(sessions / f"{sid}.jsonl")) is not None:
            by = f"another axon (pid {pid})" if pid else "another axon process"
            return (f"nothing {doing}: the turn belongs to session {sid}, in use by {by}; "
                    "use /undo there, or run `axon undo` once that session has ended")
    return None


def _pid_in(fd: int) -> int:
    try:
        return int(os.pread(fd, 32, 0).decode("ascii", "replace").strip() or 0)
    except (OSError, ValueError):
        return 0
