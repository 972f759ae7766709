"""Git in the shadow repository: running it, creating the repository, reading its trees and blobs.

Every git call runs with ``GIT_DIR`` = the shadow repository in axon's user state dir and
``GIT_WORK_TREE`` = the project, without the user's or the system's git config (no hooks, no
fsmonitor, no filters), with ``info/attributes`` turning off end-of-line and filter conversions
(a snapshot holds the bytes as they are) and ``info/exclude`` = ``/.axon/`` plus the project's
own ``.git/info/exclude``. ``ShadowGit`` is that repository as git sees it; ``shadow.ShadowRepo``
adds taking snapshots into it.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from axon_cli.machinery.snapshots.basics import SnapshotError, find_git

__all__ = ["ShadowGit", "Entry", "ATTRIBUTES"]

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


def _split(raw: bytes) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in raw.split(b"\0") if p]


def _write_if_changed(path: Path, data: bytes) -> None:
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    path.write_bytes(data)
