"""Which paths a turn's snapshot could not bring back: the fact behind "sandboxed, undoable".

During a turn the shadow index holds the turn's ``before`` snapshot. A path is covered when undo
can put it back as it was then: it is in the snapshot, or it did not exist then (a file created
during the turn: undo removes it), or it does not exist now (nothing to lose). Not covered: files
ignored by git, files the snapshot skipped (over the size cap, beyond its budget, nested
repositories, files that could not be read, directories that could not be listed and all below
them), anything in ``.axon/`` — and a directory holding any of these. Permission bits, symlinks and
empty directories are covered: the snapshot's modes bring them back. Names in the reasons are
escaped where they are not valid UTF-8.
"""

from __future__ import annotations

import os

from axon_cli.snapshots.modes import shown
from axon_cli.snapshots.shadow import ShadowRepo

__all__ = ["uncovered"]

IGNORED = "is ignored by git, so undo cannot bring it back"


def _rel(root: str, path: str) -> str | None:
    if path == root:
        return ""
    if path.startswith(root.rstrip("/") + "/"):
        return path[len(root.rstrip("/")) + 1:]
    return None


def uncovered(repo: ShadowRepo, skipped: dict[str, str], paths: list[str]) -> dict[str, str]:
    """Of the absolute ``paths``, those the current turn's snapshot cannot restore, with why."""
    root = str(repo.root)
    out: dict[str, str] = {}
    files: dict[str, str] = {}
    dirs: dict[str, str] = {}
    for path in dict.fromkeys(paths):
        rel = _rel(root, path)
        if rel is None:
            out[path] = "is outside the project"
        elif rel == ".axon" or rel.startswith(".axon/"):
            out[path] = "is in .axon/, which is not snapshotted"
        elif below := _below_skipped(rel, skipped):
            out[path] = below
        elif not os.path.lexists(path):
            continue
        elif os.path.isdir(path) and not os.path.islink(path):
            dirs[rel] = path
        else:
            files[rel] = path
    if dirs:
        for rel, path in dirs.items():
            prefix = f"{rel}/" if rel else ""
            if rel in skipped:                          # it could not be listed
                out[path] = skipped[rel]
                continue
            bad = next((s for s in skipped if s.startswith(prefix)), None)
            if bad is not None:
                out[path] = f"holds {shown(bad)}, which {skipped[bad]}"
        ignored_dirs = repo.ignored([rel or "." for rel in dirs])
        for rel, path in dirs.items():
            inner = next((i for i in ignored_dirs if i.startswith(f"{rel}/") or not rel or i.rstrip("/") == rel), None)
            if inner is not None and path not in out:
                out[path] = IGNORED if inner.rstrip("/") == rel else f"holds {shown(inner)}, which {IGNORED}"
    if files:
        tracked = repo.tracked(list(files))
        rest = [rel for rel in files if rel not in tracked]
        ignored = {i.rstrip("/") for i in repo.ignored(rest)} if rest else set()
        for rel in rest:
            if rel in skipped:
                out[files[rel]] = skipped[rel]
            elif rel in ignored or any(rel.startswith(i + "/") for i in ignored):
                out[files[rel]] = IGNORED
    return out


def _below_skipped(rel: str, skipped: dict[str, str]) -> str:
    """Why ``rel`` is not covered when a directory above it could not be listed ("" when none)."""
    parent = os.path.dirname(rel)
    while parent:
        if parent in skipped:
            return f"is in {shown(parent)}, which {skipped[parent]}"
        parent = os.path.dirname(parent)
    return ""
