"""The temp files of axon's atomic writes, named so they are recognisably axon's, and swept after a crash.

A temp file sits beside the file it will replace, as ``.NAME.axon-tmp-PID-XXXXXXXX`` (``PID``: the
writer's process id). A writer killed midway (SIGKILL, a closed terminal, a full disk) leaves it
behind, so each process lists the directories it made temp files in, once each, in
``<user state dir>/tmpwrites/<pid>``. ``sweep`` (at the start of a session) reads the lists of
processes that are gone and removes, in those directories only, regular files of exactly that form
with that dead pid — never a user's file, never a live writer's.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile
import threading
from pathlib import Path

__all__ = ["make_temp", "sweep", "TEMP_NAME"]

TEMP_NAME = re.compile(r"\..+\.axon-tmp-(\d+)-[a-z0-9_]{8}\Z", re.DOTALL)
_listed: set[str] = set()            # directories already in this process's list
_lock = threading.Lock()


def _lists() -> Path:
    from axon_cli.kernel.state import user_state_dir

    return user_state_dir() / "tmpwrites"


def make_temp(path: Path) -> tuple[int, str]:
    """A new temp file beside ``path`` (open descriptor, its path), its directory listed for the sweep."""
    folder = str(path.parent)
    _list_dir(folder)
    return tempfile.mkstemp(prefix=f".{path.name}.axon-tmp-{os.getpid()}-", dir=folder)


def _list_dir(folder: str) -> None:
    with _lock:
        if folder in _listed:
            return
        _listed.add(folder)
        with contextlib.suppress(OSError):     # an unusable state dir: the write goes on, unswept
            lists = _lists()
            lists.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(lists / str(os.getpid()), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, (json.dumps(folder) + "\n").encode("utf-8", "surrogateescape"))
            finally:
                os.close(fd)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def sweep() -> int:
    """Remove the temp files writers that are gone left behind; how many were removed."""
    try:
        entries = list(os.scandir(_lists()))
    except OSError:
        return 0
    removed = 0
    for entry in entries:
        if not entry.name.isdigit() or _alive(pid := int(entry.name)):
            continue
        try:
            with open(entry.path, "rb") as fh:
                folders = [json.loads(line) for line in fh.read(1 << 20).decode("utf-8", "surrogateescape").splitlines()
                           if line.strip()]
        except (OSError, ValueError):
            folders = []
        for folder in folders:
            if isinstance(folder, str):
                removed += _sweep_dir(folder, pid)
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
    return removed


def _sweep_dir(folder: str, pid: int) -> int:
    removed = 0
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    for name in names:
        found = TEMP_NAME.match(name)
        if found is None or int(found.group(1)) != pid:
            continue
        path = os.path.join(folder, name)
        with contextlib.suppress(OSError):
            if stat.S_ISREG(os.lstat(path).st_mode):
                os.unlink(path)
                removed += 1
    return removed
