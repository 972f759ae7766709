"""What a git tree cannot hold about a snapshot: exact permission bits, directories, unreadable paths.

A tree knows three file modes (644, 755, symlink) and no directories of their own. Beside each
snapshot's tree the shadow repository keeps one more blob, its *modes*: every directory it holds
with its permission bits, the files whose bits differ from the snapshot's two most common ones (one
for files git calls executable, one for the others), the files that were there but whose content
it does not hold — unreadable, over the size cap or beyond the budget — with their bits, size and
mtime (how undo knows nobody touched them since), the directories that could not be listed, and the
directories it left out as a whole (regenerable or too large git-ignored ones, nested repositories:
what undo finds there later was not made by the turn). The blob is written as a git object
(atomically) and read back by undo through ``parse``, which refuses anything malformed with one
line (``ModesError``).

    axon-modes 1 0644 0755\\n         header: version, the default bits of plain and executable files
    d 0755 src\\0                    a directory (``.``: the project's own)
    f 0600 src/secret.txt\\0         a file whose bits are not the default
    u 0000 12 1700000000000000000 f\\0   a file whose content is not held: bits, size, mtime (ns)
    l locked\\0                      a directory that could not be listed
    o node_modules\\0                a directory left out as a whole

Paths are the raw bytes of the name (``os.fsencode``), relative to the project, NUL-terminated.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Modes", "ModesError", "Stamp", "Walk", "walk", "build", "parse", "shown", "under"]

HEADER = b"axon-modes 1"
MAX_MODES_BYTES = 256 * 1024 * 1024
_INT = re.compile(rb"-?[0-9]{1,20}")
_FIELDS = {b"d": 1, b"f": 1, b"l": 0, b"o": 0, b"u": 3}         # kind -> numbers before the path


class ModesError(Exception):
    """A modes blob that cannot be used; the message is one line."""


def under(rel: str, dirs: set[str]) -> bool:
    """Whether ``rel`` lies below one of ``dirs``."""
    parent = os.path.dirname(rel)
    while parent:
        if parent in dirs:
            return True
        parent = os.path.dirname(parent)
    return False


def shown(rel: str) -> str:
    """A path for messages: names that are not valid UTF-8 get their bytes escaped (never a crash)."""
    return os.fsencode(rel).decode("utf-8", "backslashreplace")


@dataclass(frozen=True)
class Stamp:
    """A file that could not be read: what identifies its state without its content."""
    mode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> Stamp:
        return cls(stat.S_IMODE(st.st_mode), st.st_size, st.st_mtime_ns)


@dataclass
class Modes:
    plain: int = 0o644
    exe: int = 0o755
    files: dict[str, int] = field(default_factory=dict)       # bits that differ from plain / exe
    dirs: dict[str, int] = field(default_factory=dict)        # every directory ("": the root) -> its bits
    locked: set[str] = field(default_factory=set)             # directories that could not be listed
    unreadable: dict[str, Stamp] = field(default_factory=dict)  # files there whose content is not held
    left_out: set[str] = field(default_factory=set)           # directories not held at all

    def file_mode(self, rel: str, git_mode: str) -> int:
        """The bits of a file the tree holds with ``git_mode`` ("100644" or "100755")."""
        return self.files.get(rel, self.exe if git_mode == "100755" else self.plain)

    def encode(self) -> bytes:
        out = [b"%s %04o %04o\n" % (HEADER, self.plain, self.exe)]
        out += [b"d %04o %s\0" % (m, os.fsencode(rel) or b".") for rel, m in sorted(self.dirs.items())]
        out += [b"l %s\0" % os.fsencode(rel) for rel in sorted(self.locked) if rel]
        out += [b"o %s\0" % os.fsencode(rel) for rel in sorted(self.left_out) if rel]
        out += [b"f %04o %s\0" % (m, os.fsencode(rel)) for rel, m in sorted(self.files.items())]
        out += [b"u %04o %d %d %s\0" % (s.mode, s.size, s.mtime_ns, os.fsencode(rel))
                for rel, s in sorted(self.unreadable.items())]
        return b"".join(out)


@dataclass
class Walk:
    dirs: dict[str, int] = field(default_factory=dict)
    files: dict[str, int] = field(default_factory=dict)
    links: set[str] = field(default_factory=set)
    locked: set[str] = field(default_factory=set)


def walk(root: str, skip: set[str], start: str = "", known: dict[str, int] | None = None,
         fresh: set[str] | frozenset[str] = frozenset()) -> Walk:
    """The directories and regular files under ``start`` with their bits, never following a symlink;
    ``skip`` (ignored paths, nested repositories) and every ``.git`` are left out. A file in ``known``
    and not in ``fresh`` keeps the bits ``known`` gives (git saw no change to its stat data, ctime
    included, so nobody ran chmod on it): only directories and fresh files are looked at."""
    out = Walk()
    known = known or {}
    pending = [start]
    if not start:
        with contextlib.suppress(OSError):
            out.dirs[""] = stat.S_IMODE(os.lstat(root).st_mode)      # the project's own directory
    while pending:
        rel = pending.pop()
        path = os.path.join(root, rel) if rel else root
        if not os.access(path, os.R_OK | os.X_OK):              # listable, maybe, but not searchable
            if os.path.lexists(path):
                out.locked.add(rel)
            continue
        try:
            with os.scandir(path) as it:
                entries = list(it)
        except PermissionError:
            out.locked.add(rel)
            continue
        except OSError:                       # gone, or not a directory any more
            continue
        for entry in entries:
            sub = f"{rel}/{entry.name}" if rel else entry.name
            if entry.name == ".git" or sub in skip:
                continue
            try:
                if entry.is_symlink():
                    out.links.add(sub)
                elif entry.is_file(follow_symlinks=False):
                    bits = known.get(sub) if sub not in fresh else None
                    out.files[sub] = bits if bits is not None else stat.S_IMODE(entry.stat(follow_symlinks=False).st_mode)
                elif entry.is_dir(follow_symlinks=False):
                    out.dirs[sub] = stat.S_IMODE(entry.stat(follow_symlinks=False).st_mode)
                    pending.append(sub)
            except OSError:
                continue
    return out


def build(walked: Walk, unreadable: dict[str, Stamp], left_out: set[str] | frozenset[str] = frozenset()) -> Modes:
    """A snapshot's modes from its walk: the commonest bits of each kind of file become the defaults."""
    plain = Counter(m for m in walked.files.values() if not m & 0o111).most_common(1)
    exe = Counter(m for m in walked.files.values() if m & 0o111).most_common(1)
    modes = Modes(plain[0][0] if plain else 0o644, exe[0][0] if exe else 0o755, dirs=dict(walked.dirs),
                  locked=set(walked.locked), unreadable=dict(unreadable), left_out=set(left_out))
    for rel, m in walked.files.items():
        if m != (modes.exe if m & 0o111 else modes.plain):
            modes.files[rel] = m
    return modes


def parse(data: bytes, name: str) -> Modes:
    """The modes in ``data`` (the blob ``name``); ModesError, one line, for anything malformed."""
    def bad(why: str) -> ModesError:
        return ModesError(f"the file modes of snapshot {name[:12]} are unreadable ({why})")

    if len(data) > MAX_MODES_BYTES:
        raise bad("too large")
    head, sep, body = data.partition(b"\n")
    parts = head.split(b" ")
    if not sep or len(parts) != 4 or b" ".join(parts[:2]) != HEADER:
        raise bad("not a modes file of this axon version")
    modes = Modes(_bits(parts[2], bad), _bits(parts[3], bad))
    records = body.split(b"\0")
    if records[-1]:
        raise bad("it is cut short")
    for n, record in enumerate(records[:-1], 1):
        kind, _, rest = record.partition(b" ")
        count = _FIELDS.get(kind)
        fields = rest.split(b" ", count) if count is not None else []
        if count is None or len(fields) != count + 1:
            raise bad(f"record {n} is malformed")
        rel = "" if kind == b"d" and fields[-1] == b"." else _path(fields[-1], bad, n)   # "." is the root
        bits = _bits(fields[0], bad) if count else 0
        if kind == b"d":
            modes.dirs[rel] = bits
        elif kind == b"l":
            modes.locked.add(rel)
        elif kind == b"o":
            modes.left_out.add(rel)
        elif kind == b"f":
            modes.files[rel] = bits
        else:
            if not (fields[1].isdigit() and len(fields[1]) <= 20 and _INT.fullmatch(fields[2])):
                raise bad(f"record {n} is malformed")
            modes.unreadable[rel] = Stamp(bits, int(fields[1]), int(fields[2]))
    return modes


def _bits(raw: bytes, bad: Callable[[str], ModesError]) -> int:
    if len(raw) != 4 or any(c not in b"01234567" for c in raw):
        raise bad("a mode is not four octal digits")
    return int(raw, 8)


def _path(raw: bytes, bad: Callable[[str], ModesError], n: int) -> str:
    if not raw or any(p in (b"", b".", b"..") for p in raw.split(b"/")):
        raise bad(f"record {n} names a path outside the project")
    return os.fsdecode(raw)
