"""A path's state on disk, the state undo expects or wants there, and writing a file back.

``state`` reads a path as it is now (a tree entry and permission bits, or a marker for a directory,
something else, or a file that cannot be read). A ``Want`` is a state as a snapshot recorded it:
the expected state (what the turn left) or the target (what was there before the turn).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from axon_cli.kernel.state import atomic_write, current_umask, existing_mode
from axon_cli.machinery.snapshots.permission_bits import Stamp
from axon_cli.machinery.snapshots.shadow import Entry, blob_id

__all__ = ["State", "Want", "DIR", "OTHER", "LINK", "state", "matches", "write", "dir_bits"]

LINK = "120000"
DIR = "dir"
OTHER = "other"                        # a device, a socket, or a path that cannot be looked at


@dataclass(frozen=True)
class State:
    """A file or symlink on disk: its entry (None when it cannot be read), bits and stat stamp."""
    entry: Entry | None
    bits: int | None = None
    stamp: Stamp | None = None


@dataclass(frozen=True)
class Want:
    entry: Entry | None = None         # None: no file there
    bits: int | None = None            # None: only git's executable bit is known (or a symlink)
    stamp: Stamp | None = None         # the file could not be read then: it is told by its stat stamp
    unknown: bool = False              # nothing is known (it was in an unlistable directory)
    lost: bool = False                 # a target undo cannot write (it could not be read then)
    dir_ok: bool = False               # "no file" also holds for a directory the turn made there


def state(path: Path) -> State | None | str:
    """The path as it is now: None when absent, DIR or OTHER, else its State."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            return State(Entry(LINK, blob_id(os.fsencode(os.readlink(path)))))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return OTHER
    if stat.S_ISDIR(st.st_mode):
        return DIR
    if not stat.S_ISREG(st.st_mode):
        return OTHER
    stamp = Stamp.of(st)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return State(None, stamp.mode, stamp)
    return State(Entry("100755" if st.st_mode & 0o111 else "100644", blob_id(data)), stamp.mode, stamp)


def matches(now: State | None | str, want: Want) -> bool:
    if want.unknown:
        return True
    if want.lost and want.stamp is None:
        return False
    if want.stamp is not None:
        return isinstance(now, State) and now.stamp == want.stamp
    if want.entry is None:
        return now is None or (want.dir_ok and now == DIR)
    return (isinstance(now, State) and now.entry == want.entry
            and (want.bits is None or now.bits == want.bits))


def dir_bits(path: Path) -> int | None | str:
    """A directory's permission bits; None when nothing is there, OTHER when something else is."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return OTHER
    return stat.S_IMODE(st.st_mode) if stat.S_ISDIR(st.st_mode) else OTHER


def write(path: Path, want: Want, data: bytes) -> None:
    """Put a file (content, then bits) or a symlink (its exact target, never followed) back."""
    assert want.entry is not None
    path.parent.mkdir(parents=True, exist_ok=True)
    if want.entry.mode == LINK:
        if os.path.lexists(path):
            os.unlink(path)
        os.symlink(os.fsdecode(data), path)
        return
    mode = want.bits
    if mode is None:                   # a snapshot without modes: keep the bits, set git's executable bit
        mode = existing_mode(path) if not os.path.islink(path) else 0o666 & ~current_umask()
        mode = mode | (0o111 & ~current_umask()) if want.entry.mode == "100755" else mode & ~0o111
    atomic_write(path, data, mode=mode)
