"""The shadow git repository that holds a project's snapshots (never the project's own ``.git``).

Every git call runs with ``GIT_DIR`` = the shadow repository in axon's user state dir and
``GIT_WORK_TREE`` = the project, without the user's or the system's git config (no hooks, no
fsmonitor, no filters), with ``info/attributes`` turning off end-of-line and filter conversions
(a snapshot holds the bytes as they are) and ``info/exclude`` = ``/.axon/`` plus the project's
own ``.git/info/exclude``. Which files are snapshotted follows the project's ``.gitignore`` files.

A snapshot (``snapshot``) is a tree object: only files that are new or changed since the last
snapshot are read (git's index keeps their stat data), sent through one ``git fast-import``
(one pack, not thousands of loose objects), then ``write-tree``. Files over the per-file cap, and
files beyond the per-snapshot budget of new content, are left out and reported as skipped.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ShadowRepo", "SnapshotError", "Snapshot", "Entry", "blob_id", "find_git"]

MB = 1024 * 1024
ATTRIBUTES = b"* -text -filter -ident -working-tree-encoding -diff -merge\n"
_ENV_DROP = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES",
             "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_ALTERNATE_OBJECT_DIRECTORIES")


class SnapshotError(Exception):
    """git failed or is missing; the message is one line."""


@dataclass(frozen=True)
class Entry:
    mode: str                         # "100644" | "100755" | "120000"
    oid: str


@dataclass
class Snapshot:
    tree: str
    skipped: dict[str, str] = field(default_factory=dict)   # relative path -> why it is not in the tree


def find_git() -> str | None:
    return shutil.which("git")


def blob_id(data: bytes) -> str:
    """git's object id of a blob holding ``data``."""
    h = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    h.update(data)
    return h.hexdigest()


class ShadowRepo:
    def __init__(self, root: Path, git_dir: Path, max_file_bytes: int, max_new_bytes: int) -> None:
        self.root = root
        self.git_dir = git_dir
        self.max_file = max_file_bytes
        self.max_new = max_new_bytes
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

    # -- snapshot ------------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """The project's files as a tree (see the module docstring). Smaller files are taken first, so
        a large folder uses up the budget only after the source files are in."""
        self.ensure()
        others = _split(self.git("ls-files", "-z", "-o", "--exclude-standard"))
        changed = _split(self.git("diff-files", "-z", "--name-only"))
        skipped: dict[str, str] = {}
        sized: list[tuple[int, str, str]] = []             # size, path, mode
        info: list[bytes] = []
        for rel in set(others) | set(changed):
            kind = self._kind(rel, skipped)
            if kind is None:
                info.append(_index_line("0", "0" * 40, rel))      # out of the index
            else:
                sized.append((kind[0], rel, kind[1]))
        budget = self.max_new
        with _FastImport(self) as importer:
            for size, rel, mode in sorted(sized):
                if size > budget:
                    skipped[rel] = f"was left out of the snapshot (its budget of {self.max_new / MB:g} MB was used up)"
                    info.append(_index_line("0", "0" * 40, rel))
                    continue
                data = self._read(rel, mode, skipped)
                if data is None:
                    info.append(_index_line("0", "0" * 40, rel))
                    continue
                budget -= len(data)
                info.append(_index_line(mode, importer.add(data), rel))
        if info:
            self.git("update-index", "-z", "--index-info", input=b"\0".join(info) + b"\0")
            self.git("update-index", "-q", "--refresh", ok=(0, 1))   # record stat data: no re-reading next time
        tree = self.git("write-tree").decode().strip()
        return Snapshot(tree, skipped)

    def _kind(self, rel: str, skipped: dict[str, str]) -> tuple[int, str] | None:
        """(size, mode) of a path to snapshot; None when it is gone, not a file, or over the cap."""
        if rel.endswith("/"):
            skipped[rel] = "is a git repository of its own"
            return None
        try:
            st = os.lstat(os.path.join(self.root, rel))
        except OSError:
            return None
        if stat.S_ISLNK(st.st_mode):
            return 0, "120000"
        if not stat.S_ISREG(st.st_mode):
            return None
        if st.st_size > self.max_file:
            skipped[rel] = f"is over the snapshot size cap ({self.max_file / MB:g} MB)"
            return None
        return st.st_size, "100755" if st.st_mode & 0o111 else "100644"

    def _read(self, rel: str, mode: str, skipped: dict[str, str]) -> bytes | None:
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
            return None

    # -- reading snapshots ---------------------------------------------------------------------
    def tracked(self, rels: Sequence[str]) -> set[str]:
        """Which of ``rels`` (files) the index, i.e. the latest snapshot, holds."""
        if not rels:
            return set()
        return set(_split(self.git("ls-files", "-z", "-c", "--", *rels)))

    def ignored(self, rels: Sequence[str]) -> list[str]:
        """Of ``rels``, the ignored paths and the ignored entries under the directories among them."""
        if not rels:
            return []
        return _split(self.git("ls-files", "-z", "-o", "-i", "--exclude-standard", "--directory", "--", *rels))

    def untracked(self, rels: Sequence[str]) -> list[str]:
        """Files under ``rels`` that are neither ignored nor in the latest snapshot."""
        return _split(self.git("ls-files", "-z", "-o", "--exclude-standard", "--", *rels)) if rels else []

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
        return set(_split(self.git("ls-tree", "-r", "-d", "-z", "--name-only", tree)))

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


class _FastImport:
    """Blobs streamed into one ``git fast-import`` (started on the first blob)."""

    def __init__(self, repo: ShadowRepo) -> None:
        self.repo = repo
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> _FastImport:
        return self

    def add(self, data: bytes) -> str:
        if self.proc is None:
            if self.repo._git is None:
                raise SnapshotError("git is not installed")
            self.proc = subprocess.Popen([self.repo._git, "-c", "pack.compression=1", "fast-import", "--quiet",
                                          "--depth=0"], stdin=subprocess.PIPE,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=self.repo.env(),
                                         cwd=self.repo.root)
        assert self.proc.stdin is not None
        with contextlib.suppress(BrokenPipeError):     # reported by __exit__
            self.proc.stdin.write(b"blob\ndata %d\n" % len(data))
            self.proc.stdin.write(data)
            self.proc.stdin.write(b"\n")
        return blob_id(data)

    def __exit__(self, *exc: object) -> None:
        if self.proc is None:
            return
        _out, err = self.proc.communicate()
        if self.proc.returncode and not exc[0]:
            first = (err.decode(errors="replace").strip().splitlines() or [f"exit {self.proc.returncode}"])[0]
            raise SnapshotError(f"git fast-import failed: {first}")


def _index_line(mode: str, oid: str, rel: str) -> bytes:
    return f"{mode} {oid}\t".encode() + rel.encode("utf-8", "surrogateescape")


def _split(raw: bytes) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in raw.split(b"\0") if p]


def _write_if_changed(path: Path, data: bytes) -> None:
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    path.write_bytes(data)
