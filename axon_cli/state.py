"""The project's ``.axon/`` directory: created on first write, kept out of git by itself."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["ensure_state_dir", "atomic_write", "find_project_root", "GITIGNORE"]

GITIGNORE = ("# Written by axon: its state stays out of git, except the shared settings.\n"
             "*\n!/config.toml\n!/permissions.toml\n")


def ensure_state_dir(state_dir: Path) -> Path:
    """Create ``.axon/`` and, the first time, ``.axon/.gitignore`` (which ignores itself and all of
    ``.axon/`` but ``config.toml`` and ``permissions.toml``, so ``git status`` stays clean); returns it.
    An existing ``.gitignore`` is left as the user made it."""
    state_dir.mkdir(parents=True, exist_ok=True)
    ignore = state_dir / ".gitignore"
    if not ignore.exists():
        with contextlib.suppress(OSError):   # a read-only .axon/ must not stop axon
            atomic_write(ignore, GITIGNORE.encode(), mode=0o644)
    return state_dir


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` via a temp file in the same directory, fsync, rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    try:
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def find_project_root(start: Path | None = None) -> Path:
    """The nearest parent holding ``.axon/`` or ``.git``, else ``start`` (the current directory)."""
    start = (start or Path.cwd()).resolve()
    for candidate in (start, *start.parents):
        if (candidate / ".axon").is_dir() or (candidate / ".git").exists():
            return candidate
    return start
