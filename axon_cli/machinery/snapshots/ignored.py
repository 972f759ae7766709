"""Which git-ignored files a snapshot takes, and which ignored directories it leaves out, and why.

Snapshots hold git-ignored files too (within the size cap and budget), except:

- regenerable directories (``REGENERABLE``: virtualenvs, ``node_modules``, caches, build output),
  wherever they are among the ignored paths — a program's own deletes there are not seen, and
  undo does not bring them back (they can be made again);
- an ignored directory holding more than a snapshot's budget of content, or more than
  ``MAX_FILES`` files (a data set): it is left out as a whole, so every snapshot lists it only up
  to that bound (its subdirectories are tried one by one first, so a small ``data/db.sqlite`` is
  still held beside a large ``data/raw/``);
- new ignored files once the snapshots hold a budget's worth of ignored content, or ``MAX_FILES``
  ignored files, in all (the index's stat data says how much): a large data set is not copied a
  budget at a time, snapshot after snapshot;
- ``.axon/``, every ``.git`` and nested repositories.

git lists ignored paths not in the shadow index (``ls-files -o -i --directory``): single files, and
directories with nothing in the index collapsed to ``dir/``. A collapsed directory is walked here
(never following a symlink); once its files are in the index, git's stat cache follows them like
any other file, so it is walked once.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from axon_cli.machinery.snapshots.permission_bits import under

__all__ = ["REGENERABLE", "Found", "collect", "regenerable", "regenerable_reason", "MAX_FILES"]

MAX_FILES = 20_000              # files in one ignored directory, beyond which it is left out
MAX_SCANNED = 100_000           # directory entries one snapshot looks at in ignored directories
NESTED = "is a git repository of its own"

# Directory names that are made again by a tool (installs, caches, build output): one list.
REGENERABLE: dict[str, str] = {
    "node_modules": "npm packages", "__pycache__": "Python bytecode", ".tox": "tox environments",
    ".nox": "nox environments", ".mypy_cache": "a cache", ".pytest_cache": "a cache", ".ruff_cache": "a cache",
    ".hypothesis": "a cache", ".gradle": "Gradle's cache", ".next": "Next.js output", ".nuxt": "Nuxt output",
    ".parcel-cache": "a cache", ".cache": "a cache", ".eggs": "Python eggs", "build": "build output",
    "dist": "build output",
}
VIRTUALENVS = (".venv", "venv", "env")      # with a pyvenv.cfg inside


def regenerable(root: str, rel: str) -> str | None:
    """What kind of regenerable directory the git-ignored directory ``rel`` is (None: not one)."""
    name = os.path.basename(rel)
    if name in REGENERABLE:
        return REGENERABLE[name]
    if name.endswith(".egg-info"):
        return "Python package metadata"
    if name in VIRTUALENVS and os.path.isfile(os.path.join(root, rel, "pyvenv.cfg")):
        return "a Python virtual environment"
    if name == "target" and os.path.isfile(os.path.join(root, os.path.dirname(rel), "Cargo.toml")):
        return "Cargo's build output"
    return None


def regenerable_reason(rel: str, kind: str) -> str:
    return f"is a regenerable directory ({os.path.basename(rel)}: {kind}), which undo does not hold"


@dataclass
class Found:
    files: dict[str, os.stat_result] = field(default_factory=dict)   # ignored files to take
    left_out: dict[str, str] = field(default_factory=dict)           # directory -> why nothing in it is held
    partly: dict[str, str] = field(default_factory=dict)             # directory -> why new files in it are not
    scanned: int = 0
    over: dict[str, tuple[os.stat_result, str]] = field(default_factory=dict)   # files not taken, and why
    allowance: int = 0                                               # bytes of ignored files still to take
    count: int = 0                                                   # and how many files


def collect(root: str, entries: list[str], max_file: int, max_bytes: int, allowance: int,
            count: int = MAX_FILES) -> Found:
    """The git-ignored files a snapshot may take, from git's listing ``entries`` (see the module
    docstring); files over ``max_file`` are returned too (the snapshot reports them as skipped).
    ``allowance``, ``count``: how many more bytes and files of ignored files the snapshots may hold
    (``max_bytes`` and ``MAX_FILES`` in all); new ones beyond are left out, so a large data set is
    not copied a budget at a time."""
    found = Found(allowance=allowance, count=count)
    tops = sorted(e.rstrip("/") for e in entries if e.endswith("/"))
    in_tops = set(tops)
    singles: dict[str, list[str]] = {}
    for rel in entries:
        if not rel.endswith("/") and not _excluded(rel) and not under(rel, in_tops):
            singles.setdefault(os.path.dirname(rel), []).append(rel)
    for parent, rels in singles.items():
        above = _regenerable_above(root, rels[0])
        if above is not None:
            found.partly.setdefault(above, regenerable_reason(above, regenerable(root, above) or ""))
        elif len(rels) > MAX_FILES or found.scanned + len(rels) > MAX_SCANNED:
            found.partly[parent] = (f"holds more new git-ignored files than a snapshot takes ({MAX_FILES}), "
                                    "which undo does not hold")
        else:
            found.scanned += len(rels)
            _take_singles(root, rels, found, max_file, max_bytes)
    pending = [t for t in tops if not _excluded(t)]
    while pending:
        top = pending.pop()
        kind = regenerable(root, top)
        if kind is not None:
            found.left_out[top] = regenerable_reason(top, kind)
            continue
        if found.allowance <= 0 or found.count <= 0:
            found.left_out[top] = f"is a git-ignored directory {_beyond(max_bytes)}, which undo does not hold"
            continue
        whole = _subtree(root, top, found, max_file, max_bytes)
        if whole:
            continue
        direct, subdirs = _level(root, top, found, max_file, max_bytes) if whole is False else (None, [])
        if direct is None:
            found.left_out[top] = (f"is a git-ignored directory holding more than a snapshot takes "
                                   f"({max_bytes / 1024 / 1024:.3g} MB or {MAX_FILES} files), which undo does not hold")
            continue
        if isinstance(direct, str):
            found.left_out[top] = direct
            continue
        found.files.update(direct)
        pending += subdirs
    return found


def _beyond(max_bytes: int) -> str:
    return f"beyond the {max_bytes / 1024 / 1024:.3g} MB or {MAX_FILES} git-ignored files snapshots hold"


def _take_singles(root: str, rels: list[str], found: Found, max_file: int, max_bytes: int) -> None:
    """Ignored files git listed one by one (their directory holds files the index has): smaller
    first while the allowance lasts; the rest are reported with their stat (``over``)."""
    stats: list[tuple[int, str, os.stat_result]] = []
    for rel in rels:
        try:
            st = os.lstat(os.path.join(root, rel))
        except OSError:
            continue
        stats.append((st.st_size if stat.S_ISREG(st.st_mode) and st.st_size <= max_file else 0, rel, st))
    for size, rel, st in sorted(stats, key=lambda s: s[:2]):
        if size > found.allowance or found.count <= 0:
            found.over[rel] = (st, f"is git-ignored and {_beyond(max_bytes)}, which undo does not hold")
            continue
        found.allowance -= size
        found.count -= 1
        found.files[rel] = st


def _excluded(rel: str) -> bool:
    parts = rel.split("/")
    return parts[0] == ".axon" or ".git" in parts


def _regenerable_above(root: str, rel: str) -> str | None:
    parent = os.path.dirname(rel)
    hits: list[str] = []
    while parent:
        if regenerable(root, parent) is not None:
            hits.append(parent)
        parent = os.path.dirname(parent)
    return hits[-1] if hits else None         # the outermost


def _subtree(root: str, top: str, found: Found, max_file: int, max_bytes: int) -> bool | None:
    """Take everything under ``top`` if it fits (True); nothing when it does not (False, or None when
    the entries of ``top`` alone are too many)."""
    files: dict[str, os.stat_result] = {}
    left: dict[str, str] = {}
    size = 0
    pending = [top]
    while pending:
        rel = pending.pop()
        listed = _list(root, rel, found)
        if listed is None:
            return None if rel == top else False
        if any(e.name == ".git" for e in listed):
            left[rel] = NESTED
            continue
        for entry in listed:
            sub = f"{rel}/{entry.name}"
            try:
                if entry.is_dir(follow_symlinks=False):
                    kind = regenerable(root, sub)
                    if kind is not None:
                        left[sub] = regenerable_reason(sub, kind)
                    else:
                        pending.append(sub)
                    continue
                size += _take(entry, sub, files, max_file)
            except OSError:
                continue
        if len(files) > min(MAX_FILES, found.count) or size > min(max_bytes, found.allowance) \
                or found.scanned > MAX_SCANNED:
            return False
    found.allowance -= size
    found.count -= len(files)
    found.files.update(files)
    found.left_out.update(left)
    return True


def _take(entry: os.DirEntry[str], rel: str, files: dict[str, os.stat_result], max_file: int) -> int:
    """Note the file ``entry`` (at ``rel``) in ``files``; the bytes it adds to a snapshot."""
    st = entry.stat(follow_symlinks=False)
    files[rel] = st
    return st.st_size if stat.S_ISREG(st.st_mode) and st.st_size <= max_file else 0


def _level(root: str, top: str, found: Found, max_file: int,
           max_bytes: int) -> tuple[dict[str, os.stat_result] | str | None, list[str]]:
    """The files directly in ``top`` and its subdirectories; None when those files alone are too
    many or too large, or the snapshot has looked at enough entries; why, when they are beyond the
    allowance."""
    if found.scanned > MAX_SCANNED:
        return f"is a git-ignored directory beyond the {MAX_SCANNED} entries a snapshot lists, which undo does not hold", []
    listed = _list(root, top, found)
    if listed is None and found.scanned > MAX_SCANNED:
        return f"is a git-ignored directory beyond the {MAX_SCANNED} entries a snapshot lists, which undo does not hold", []
    if listed is None:
        return None, []
    files: dict[str, os.stat_result] = {}
    subdirs: list[str] = []
    size = 0
    for entry in listed:
        sub = f"{top}/{entry.name}"
        try:
            if entry.is_dir(follow_symlinks=False):
                subdirs.append(sub)
                continue
            size += _take(entry, sub, files, max_file)
        except OSError:
            continue
    if len(files) > MAX_FILES or size > max_bytes:
        return None, []
    if size > found.allowance or len(files) > found.count:
        return f"is a git-ignored directory {_beyond(max_bytes)}, which undo does not hold", []
    found.allowance -= size
    found.count -= len(files)
    return files, subdirs


def _list(root: str, rel: str, found: Found) -> list[os.DirEntry[str]] | None:
    """The entries of a directory; None when it holds more than ``MAX_FILES`` or the snapshot has
    looked at enough entries. One that cannot be listed is empty here (the modes walk reports it)."""
    listed: list[os.DirEntry[str]] = []
    try:
        with os.scandir(os.path.join(root, rel)) as it:
            for entry in it:
                listed.append(entry)
                if len(listed) > MAX_FILES:
                    break
    except OSError:
        return []
    found.scanned += len(listed)
    return None if len(listed) > MAX_FILES or found.scanned > MAX_SCANNED else listed
