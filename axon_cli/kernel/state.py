"""The project's ``.axon/`` directory (created on first write, kept out of git by itself); atomic writes; TOML reading."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from axon_cli.kernel.tempfiles import make_temp

__all__ = ["ensure_state_dir", "atomic_write", "find_project_root", "read_toml", "user_state_dir", "GITIGNORE"]

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
    """Write ``data`` to ``path`` via a temp file in the same directory (``.NAME.axon-tmp-PID-XXXXXXXX``,
    swept by the next axon if this process is killed midway: ``tempfiles``), fsync, rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = make_temp(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is None:
            mode = existing_mode(path)
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


def existing_mode(path: Path) -> int:
    """The permission bits ``path`` has, or what a new file gets under the umask (mkstemp's 0600
    would otherwise leak onto every file axon creates)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return 0o666 & ~current_umask()


def current_umask() -> int:
    try:  # Linux: read it without changing it (os.umask round-trips race with other threads)
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def find_project_root(start: Path | None = None) -> Path:
    """The nearest parent holding ``.axon/`` or ``.git``, else ``start`` (the current directory)."""
    start = (start or Path.cwd()).resolve()
    for candidate in (start, *start.parents):
        if (candidate / ".axon").is_dir() or (candidate / ".git").exists():
            return candidate
    return start


def user_state_dir() -> Path:
    """axon's per-user state (sandbox probe, workspace snapshots): ``$XDG_STATE_HOME/axon``, default
    ``~/.local/state/axon``. Not created here."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "axon"


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file's table; unreadable, too large, not UTF-8, malformed or nested too deeply is one
    ``ConfigError`` line naming the file (see ``axon_cli.kernel.loaders``)."""
    from axon_cli.kernel.loaders import load_toml

    return load_toml(path)
