"""The shadow git repository that holds a project's snapshots (never the project's own ``.git``).

The project's ``.gitignore`` files say which files come first.

A snapshot (``snapshot``) is a tree object: only files that are new or changed since the last
snapshot are read (git's index keeps their stat data), sent through one ``git fast-import``
(one pack, not thousands of loose objects), then ``write-tree``. Files over the per-file cap, and
files beyond the per-snapshot budget of new content, are left out and reported as skipped (with
their stat stamp in the modes, so undo knows they were there). git-ignored files are held too, up
to the same budget in all, without regenerable or too large directories (``ignored``). Beside
the tree goes a blob of the snapshot's modes (``modes``: exact permission bits, every directory,
the files that could not be read), from one walk of the project that never reads a file.

Every git call runs with ``GIT_DIR`` = the shadow repository in axon's user state dir and
``GIT_WORK_TREE`` = the project, without the user's or the system's git config (no hooks, no
fsmonitor, no filters), with ``info/attributes`` turning off end-of-line and filter conversions
(a snapshot holds the bytes as they are) and ``info/exclude`` = ``/.axon/`` plus the project's
own ``.git/info/exclude``. ``ShadowGit`` is that repository as git sees it; ``ShadowRepo``
adds taking snapshots into it.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from axon_cli.machinery.snapshots.basics import MB, SnapshotError, find_git
from axon_cli.machinery.snapshots.permission_bits import Stamp, build, walk

__all__ = ["ShadowRepo", "SnapshotError", "Snapshot", "Entry", "blob_id", "find_git", "MB", "ShadowGit", "ATTRIBUTES", "split_paths"]

ATTRIBUTES = b"* -text -filter -ident -working-tree-encoding -diff -merge\n"

_ENV_DROP = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES",
             "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_ALTERNATE_OBJECT_DIRECTORIES")



@dataclass(frozen=True)
class Entry:
    mode: str                         # "100644" | "100755" | "120000"
    oid: str



class ShadowGit:
    def __init__(self, root: Path, git_dir: Path) -> None:
        self.root = root
        self.git_dir = git_dir
        self._git = find_git()

    # -- running git ---------------------------------------------------------------------------
    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _ENV_DROP}
        env.update({"GIT_DIR": str(self.git_dir), "GIT_WORK_TREE": str(self.root), "GIT_CONFIG_NOSYSTEM": "1",
                    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C",
                    "GIT_OPTIONAL_LOCKS": "0"})
        return env

    def git(self, *args: str, input: bytes | None = None, ok: Sequence[int] = (0,),
            env: dict[str, str] | None = None) -> bytes:
        if self._git is None:
            raise SnapshotError("git is not installed")
        try:
            done = subprocess.run([self._git, "-c", "core.quotepath=false", *args], input=input,
                                  capture_output=True, env=env or self.env(), cwd=self.root, timeout=300,
                                  stdin=None if input is not None else subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise SnapshotError(f"git {args[0]} failed: {e}") from None
        if done.returncode not in ok:
            first = (done.stderr.decode(errors="replace").strip().splitlines() or [f"exit {done.returncode}"])[0]
            raise SnapshotError(f"git {args[0]} failed: {first}")
        return done.stdout

    def ensure(self) -> None:
        """Create the repository on first use; refresh its exclude file from the project's."""
        if not (self.git_dir / "HEAD").is_file():
            self.git_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            bare = {k: v for k, v in self.env().items() if k not in ("GIT_DIR", "GIT_WORK_TREE")}
            self.git("init", "-q", "--bare", str(self.git_dir), env=bare)
            for key, value in (("core.bare", "false"), ("core.logAllRefUpdates", "false"),
                               ("gc.autoDetach", "true"), ("core.autocrlf", "false"), ("core.symlinks", "true")):
                self.git("config", key, value)
        stale = self.git_dir / "index.lock"            # left by an axon killed mid-snapshot (we hold the lock)
        if stale.exists():
            stale.unlink(missing_ok=True)
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        _write_if_changed(info / "attributes", ATTRIBUTES)
        own = self.root / ".git" / "info" / "exclude"
        try:
            extra = own.read_bytes() if own.is_file() else b""
        except OSError:
            extra = b""
        _write_if_changed(info / "exclude", b"/.axon/\n" + extra)

    # -- reading snapshots ---------------------------------------------------------------------
    def tracked(self, rels: Sequence[str]) -> set[str]:
        """Which of ``rels`` (files) the index, i.e. the latest snapshot, holds."""
        if not rels:
            return set()
        return set(split_paths(self.git("ls-files", "-z", "-c", "--", *rels)))

    def ignored(self, rels: Sequence[str]) -> list[str]:
        """Of ``rels``, the ignored paths and the ignored entries under the directories among them."""
        if not rels:
            return []
        return split_paths(self.git("ls-files", "-z", "-o", "-i", "--exclude-standard", "--directory", "--", *rels))

    def untracked(self, rels: Sequence[str]) -> list[str]:
        """Files under ``rels`` that are neither ignored nor in the latest snapshot."""
        return split_paths(self.git("ls-files", "-z", "-o", "--exclude-standard", "--", *rels)) if rels else []

    def diff(self, before: str, after: str) -> list[tuple[str, Entry | None, Entry | None]]:
        """Paths that differ between two trees: (path, entry before or None, entry after or None)."""
        raw = self.git("diff-tree", "-r", "-z", "--no-renames", "--raw", before, after)
        parts = raw.split(b"\0")
        out: list[tuple[str, Entry | None, Entry | None]] = []
        for i in range(0, len(parts) - 1, 2):
            meta = parts[i].decode().lstrip(":").split()
            if len(meta) < 5:
                continue
            rel = parts[i + 1].decode("utf-8", "surrogateescape")
            old = Entry(meta[0], meta[2]) if meta[0] != "000000" else None
            new = Entry(meta[1], meta[3]) if meta[1] != "000000" else None
            out.append((rel, old, new))
        return out

    def blobs(self, oids: Sequence[str]) -> dict[str, bytes]:
        """The contents of blobs, read in one ``cat-file --batch``."""
        if not oids:
            return {}
        raw = self.git("cat-file", "--batch", input=("\n".join(oids) + "\n").encode())
        out: dict[str, bytes] = {}
        pos = 0
        for oid in oids:
            end = raw.index(b"\n", pos)
            header = raw[pos:end].split()
            if len(header) < 3:                # "<oid> missing"
                pos = end + 1
                continue
            size = int(header[2])
            out[oid] = raw[end + 1:end + 1 + size]
            pos = end + 1 + size + 1
        return out

    def dirs(self, tree: str) -> set[str]:
        return set(split_paths(self.git("ls-tree", "-r", "-d", "-z", "--name-only", tree)))

    def keep(self, refs: dict[str, str | None]) -> None:
        """Point (or, for None, delete) refs at trees so git keeps them."""
        lines = [f"update {ref} {oid}" if oid else f"delete {ref}" for ref, oid in refs.items()]
        if lines:
            self.git("update-ref", "--stdin", input=("\n".join(lines) + "\n").encode())

    def maintain(self) -> None:
        """Let git pack and prune when it decides to (in the background)."""
        subprocess.Popen([self._git or "git", "gc", "--auto", "--quiet"], env=self.env(), cwd=self.root,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)



def split_paths(raw: bytes) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in raw.split(b"\0") if p]



def _write_if_changed(path: Path, data: bytes) -> None:
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    path.write_bytes(data)

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
        others = split_paths(self.git("ls-files", "-z", "-o", "--exclude-standard"))
        changed = split_paths(self.git("diff-files", "-z", "--name-only"))
        listed = split_paths(self.git("ls-files", "-z", "-o", "-i", "--exclude-standard", "--directory"))
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
