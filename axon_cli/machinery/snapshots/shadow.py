"""The shadow git repository that holds a project's snapshots (never the project's own ``.git``).

Running git in it (without the user's or the system's git config, no conversions, the project's
own excludes) and reading its trees and blobs is ``shadow_git``. The project's ``.gitignore`` files
say which files come first.

A snapshot (``snapshot``) is a tree object: only files that are new or changed since the last
snapshot are read (git's index keeps their stat data), sent through one ``git fast-import``
(one pack, not thousands of loose objects), then ``write-tree``. Files over the per-file cap, and
files beyond the per-snapshot budget of new content, are left out and reported as skipped (with
their stat stamp in the modes, so undo knows they were there). git-ignored files are held too, up
to the same budget in all, without regenerable or too large directories (``ignored``). Beside
the tree goes a blob of the snapshot's modes (``modes``: exact permission bits, every directory,
the files that could not be read), from one walk of the project that never reads a file.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from axon_cli.machinery.snapshots.basics import MB, SnapshotError, find_git
from axon_cli.machinery.snapshots.permission_bits import Stamp, build, walk
from axon_cli.machinery.snapshots.shadow_git import Entry, ShadowGit, _split

__all__ = ["ShadowRepo", "SnapshotError", "Snapshot", "Entry", "blob_id", "find_git", "MB"]

_SIZE = re.compile(rb"\n  size: ([0-9]{1,20})\t")


@dataclass
class Snapshot:
    tree: str
    skipped: dict[str, str] = field(default_factory=dict)   # relative path -> why it is not in the tree
    modes: str | None = None                                 # the blob of its modes (``modes.Modes``)


def blob_id(data: bytes) -> str:
    """git's object id of a blob holding ``data``."""
    h = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    h.update(data)
    return h.hexdigest()


class ShadowRepo(ShadowGit):
    def __init__(self, root: Path, git_dir: Path, max_file_bytes: int, max_new_bytes: int) -> None:
        super().__init__(root, git_dir)
        self.max_file = max_file_bytes
        self.max_new = max_new_bytes
        self._last_modes: str | None = None
        self._known: tuple[bytes | None, dict[str, int]] | None = None      # (index id, bits of files)

    # -- snapshot ------------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """The project's files as a tree, and their modes (see the module docstring). The project's own
        files go first, then git-ignored ones (``ignored``), smaller first within each: a large folder
        uses up the budget only after the source files are in."""
        from axon_cli.machinery.snapshots.fastimport import FastImport
        from axon_cli.machinery.snapshots.ignored import MAX_FILES as MAX_IGNORED
        from axon_cli.machinery.snapshots.ignored import collect

        self.ensure()
        others = _split(self.git("ls-files", "-z", "-o", "--exclude-standard"))
        changed = _split(self.git("diff-files", "-z", "--name-only"))
        listed = _split(self.git("ls-files", "-z", "-o", "-i", "--exclude-standard", "--directory"))
        held_bytes, held_files = self._held_ignored()
        found = collect(str(self.root), listed, self.max_file, self.max_new, self.max_new - held_bytes,
                        MAX_IGNORED - held_files)
        skipped: dict[str, str] = {**found.partly, **found.left_out, **{r: why for r, (_st, why) in found.over.items()}}
        stamps: dict[str, Stamp] = {rel: Stamp.of(st) for rel, (st, _why) in found.over.items()}
        sized: list[tuple[int, int, str, str, os.stat_result]] = []
        info: list[bytes] = []
        real_dirs: dict[str, bool] = {}
        for group, rels in ((0, set(others) | set(changed)), (1, found.files.keys() - set(others))):
            for rel in rels:
                kind = self._kind(rel, skipped, stamps, real_dirs, found.files.get(rel))
                if kind is None:
                    info.append(_index_line("0", "0" * 40, rel))      # out of the index
                elif isinstance(kind, tuple):
                    sized.append((group, kind[0].st_size if kind[1] != "120000" else 0, rel, kind[1], kind[0]))
        budget = self.max_new
        with FastImport(self) as importer:
            for _group, size, rel, mode, st in sorted(sized, key=lambda s: s[:3]):
                if size > budget:
                    skipped[rel] = f"was left out of the snapshot (its budget of {self.max_new / MB:g} MB was used up)"
                    stamps[rel] = Stamp.of(st)                # undo tells by these that it was there, not held
                    info.append(_index_line("0", "0" * 40, rel))
                    continue
                data = self._read(rel, mode, skipped)
                if isinstance(data, PermissionError):
                    stamps[rel] = Stamp.of(st)
                if not isinstance(data, bytes):
                    info.append(_index_line("0", "0" * 40, rel))
                    continue
                budget -= len(data)
                info.append(_index_line(mode, importer.add(data), rel))
        if info:
            self.git("update-index", "-z", "--index-info", input=b"\0".join(info) + b"\0")
            self.git("update-index", "-q", "--refresh", ok=(0, 1))   # record stat data: no re-reading next time
        left_out = {p.rstrip("/") for p in others if p.endswith("/")} | set(found.left_out)
        fresh = set(others) | set(changed) | set(found.files)
        modes_id = self._modes(left_out | {".axon"}, fresh, skipped, stamps, left_out)
        tree = self.git("write-tree").decode().strip()
        return Snapshot(tree, skipped, modes_id)

    def _modes(self, skip: set[str], fresh: set[str], skipped: dict[str, str], stamps: dict[str, Stamp],
               left_out: set[str]) -> str:
        """Walk the project for the snapshot's modes (see ``modes``) and store them as a blob. The walk
        comes after the index took the files' stat data, so a later chmod shows in their ctime; the bits
        of files git saw unchanged come from this process's last walk, if the index is the one it left."""
        index = self._index_id()
        known = self._known[1] if self._known is not None and index is not None and self._known[0] == index else None
        walked = walk(str(self.root), skip, known=known, fresh=fresh)
        self._known = (index, walked.files)
        for rel in walked.locked:
            skipped[rel] = "cannot be listed (Permission denied)"
        data = build(walked, stamps, left_out).encode()
        oid = blob_id(data)
        if oid != self._last_modes:
            self.git("hash-object", "-w", "--stdin", input=data)
            self._last_modes = oid
        return oid

    def _held_ignored(self) -> tuple[int, int]:
        """How many bytes, and files, of git-ignored files the index holds (from its stat data)."""
        sizes = _SIZE.findall(self.git("ls-files", "-z", "-c", "-i", "--exclude-standard", "--debug"))
        return sum(int(n) for n in sizes), len(sizes)

    def _index_id(self) -> bytes | None:
        """The shadow index's checksum (its last bytes): which index a remembered walk belongs to."""
        try:
            with open(self.git_dir / "index", "rb") as fh:
                fh.seek(-32, os.SEEK_END)
                return fh.read() + os.fstat(fh.fileno()).st_mtime_ns.to_bytes(8, "little")
        except (OSError, ValueError):
            return None

    def _kind(self, rel: str, skipped: dict[str, str], stamps: dict[str, Stamp], real_dirs: dict[str, bool],
              st: os.stat_result | None = None) -> tuple[os.stat_result, str] | None | str:
        """(stat, mode) of a path to snapshot; None when it is gone, not a file, or over the cap;
        "unknown" when it cannot be looked at (its entry stays as it was). ``real_dirs`` remembers
        which parent directories have no symlink in their path."""
        if rel.endswith("/"):
            skipped[rel] = "is a git repository of its own"
            return None
        parent = os.path.dirname(rel)
        if parent not in real_dirs:
            full = os.path.join(self.root, parent)
            real_dirs[parent] = os.path.realpath(full) == full.rstrip("/")
        if not real_dirs[parent]:
            return None                       # beyond a symlink: gone from the project (as git sees it)
        if st is None:
            try:
                st = os.lstat(os.path.join(self.root, rel))
            except PermissionError:
                skipped[rel] = "cannot be read (Permission denied)"
                return "unknown"
            except OSError:
                return None
        if stat.S_ISLNK(st.st_mode):
            return st, "120000"
        if not stat.S_ISREG(st.st_mode):
            return None
        if st.st_size > self.max_file:
            skipped[rel] = f"is over the snapshot size cap ({self.max_file / MB:g} MB)"
            stamps[rel] = Stamp.of(st)
            return None
        return st, "100755" if st.st_mode & 0o111 else "100644"

    def _read(self, rel: str, mode: str, skipped: dict[str, str]) -> bytes | OSError | None:
        """The content of a file (a link's target); None when it is gone, the error when it cannot be read."""
        path = os.path.join(self.root, rel)
        try:
            if mode == "120000":
                return os.fsencode(os.readlink(path))
            with open(path, "rb") as fh:
                return fh.read()
        except FileNotFoundError:
            return None
        except OSError as e:
            skipped[rel] = f"cannot be read ({e.strerror})"
            return e


def _index_line(mode: str, oid: str, rel: str) -> bytes:
    return f"{mode} {oid}\t".encode() + rel.encode("utf-8", "surrogateescape")
