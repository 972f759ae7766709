"""Blobs streamed into one ``git fast-import`` (one pack per snapshot, not thousands of loose objects)."""

from __future__ import annotations

import contextlib
import subprocess

from axon_cli.machinery.snapshots.shadow import ShadowRepo, SnapshotError, blob_id

__all__ = ["FastImport"]


class FastImport:
    """Blobs streamed into one ``git fast-import`` (started on the first blob)."""

    def __init__(self, repo: ShadowRepo) -> None:
        self.repo = repo
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> FastImport:
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
