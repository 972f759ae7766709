"""Which paths a turn's snapshot could not bring back: the fact behind "sandboxed, undoable".

During a turn the shadow index holds the turn's ``before`` snapshot. A path is covered when undo
can put it back as it was then: it is in the snapshot, or it did not exist then (a file created
during the turn: undo removes it), or it does not exist now (nothing to lose). Not covered: files
ignored by git, files the snapshot skipped (over the size cap, beyond its budget, nested
repositories), anything in ``.axon/`` — and a directory holding any of these.
"""

from __future__ import annotations

import os

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
        elif not os.path.lexists(path):
            continue
        elif os.path.isdir(path) and not os.path.islink(path):
            dirs[rel] = path
        else:
            files[rel] = path
    if dirs:
        for rel, path in dirs.items():
            prefix = f"{rel}/" if rel else ""
            bad = next((s for s in skipped if s.startswith(prefix)), None)
            if bad is not None:
                out[path] = f"holds {bad}, which {skipped[bad]}"
        ignored_dirs = repo.ignored([rel or "." for rel in dirs])
        for rel, path in dirs.items():
            inner = next((i for i in ignored_dirs if i.startswith(f"{rel}/") or not rel or i.rstrip("/") == rel), None)
            if inner is not None and path not in out:
                out[path] = IGNORED if inner.rstrip("/") == rel else f"holds {inner}, which {IGNORED}"
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
