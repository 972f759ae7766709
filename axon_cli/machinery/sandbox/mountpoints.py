"""Mount points for protected names that do not exist yet (a project without ``.git``, a submodule
directory without its gitfile).

To keep ``<root>/.git`` read-only inside the sandbox when the project has none, bubblewrap needs
something to mount on, and the project is the host's own directory: the mount point is an empty
directory created on the host for as long as a sandboxed command runs, and removed right after.
An empty ``.git`` directory is not a repository to git (it keeps looking in the parent
directories), so the project never looks like a git repository, and nothing stays behind.

Several commands (threads, other axon processes) may share one mount point: each holder leaves a
marker named by its pid in axon's user state dir; the last one out removes the directory, and only
if it is still empty. A holder that was killed is noticed by the next one (its pid is gone) and
its mount point is removed then.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from axon_cli.kernel.state import user_state_dir

__all__ = ["held", "sweep"]

_lock = threading.Lock()
_holders: dict[str, int] = {}          # path -> threads of this process holding it


def _markers() -> Path:
    return user_state_dir() / "mountpoints"


def _marker_dir(path: str) -> Path:
    return _markers() / hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:24]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_if_empty(path: str) -> None:
    with contextlib.suppress(OSError):
        if os.path.isdir(path) and not os.path.islink(path) and not os.listdir(path):
            os.rmdir(path)


def _release_dir(marker: Path) -> None:
    """Remove the mount point of ``marker`` if no live process holds it."""
    try:
        path = (marker / "path").read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        shutil.rmtree(marker, ignore_errors=True)
        return
    live = False
    for entry in marker.iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        if (_holders.get(path, 0) > 0) if pid == os.getpid() else _alive(pid):
            live = True
        else:
            with contextlib.suppress(OSError):
                entry.unlink()
    if not live:
        _remove_if_empty(path)
        shutil.rmtree(marker, ignore_errors=True)


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    """This process's threads and other axon processes, one at a time."""
    import fcntl

    with _lock:
        base = _markers()
        base.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(base / ".lock", "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)


def sweep() -> None:
    """Remove mount points left by holders that are gone (a killed axon)."""
    if not _markers().is_dir():
        return
    with _locked():
        for marker in list(_markers().iterdir()):
            if marker.is_dir():
                _release_dir(marker)


@contextlib.contextmanager
def held(paths: Sequence[str]) -> Iterator[list[str]]:
    """Create each missing ``path`` as an empty directory for the duration; yields the ones that are
    mount points made here (a path that exists for real is not touched)."""
    created: list[str] = []
    with _locked():
        for path in paths:
            marker = _marker_dir(path)
            if os.path.lexists(path) and not marker.is_dir():
                continue                       # the project's own .git
            marker.mkdir(parents=True, exist_ok=True, mode=0o700)
            (marker / "path").write_text(path, encoding="utf-8", errors="surrogateescape")
            (marker / str(os.getpid())).touch()
            if not os.path.lexists(path):
                os.mkdir(path, 0o755)
            _holders[path] = _holders.get(path, 0) + 1
            created.append(path)
    try:
        yield created
    finally:
        with _locked():
            for path in created:
                _holders[path] -= 1
                if not _holders[path]:
                    del _holders[path]
                _release_dir(_marker_dir(path))
