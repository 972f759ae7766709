"""Which paths a turn's snapshot could not bring back: the fact behind "sandboxed, undoable".

During a turn the shadow index holds the turn's ``before`` snapshot. A path is covered when undo
can put it back as it was then: it is in the snapshot (git-ignored files included), or it did not
exist then (a file created during the turn: undo removes it), or it does not exist now (nothing to
lose). Not covered — and each with its reason from the snapshot's ``skipped``: files it skipped
(over the size cap, beyond its budget, unreadable), directories it left out (regenerable ones such
as ``node_modules``, git-ignored ones too large to hold, nested repositories, unlistable ones) and
everything below them, anything in ``.axon/`` — and a directory holding any of these. Every existing
path the snapshot saw and did not hold is in ``skipped`` (``shadow``, ``ignored``), so a path in
neither the index nor ``skipped`` was made after the snapshot. Permission bits, symlinks and empty
directories are covered: the snapshot's modes bring them back. Names in the reasons are escaped
where they are not valid UTF-8.
"""

from __future__ import annotations

import os

from axon_cli.machinery.snapshots.permission_bits import shown
from axon_cli.machinery.snapshots.shadow import ShadowRepo

__all__ = ["uncovered", "AXON"]

AXON = "is in .axon/, which is not snapshotted"


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
    for path in dict.fromkeys(paths):
        rel = _rel(root, path)
        if rel is None:
            out[path] = "is outside the project"
        elif rel == ".axon" or rel.startswith(".axon/"):
            out[path] = AXON
        elif ".git" in rel.split("/"):
            out[path] = "is in a .git directory, which is not snapshotted"
        elif below := _below_skipped(rel, skipped):
            out[path] = below
        elif not os.path.lexists(path):
            continue
        elif os.path.isdir(path) and not os.path.islink(path):
            if why := _dir_holds(root, rel, skipped):
                out[path] = why
        else:
            files[rel] = path
    if files:
        tracked = repo.tracked(list(files))
        for rel, path in files.items():
            if rel not in tracked and rel in skipped:
                out[path] = skipped[rel]
    return out


def _dir_holds(root: str, rel: str, skipped: dict[str, str]) -> str:
    """Why directory ``rel`` is not covered: it was left out, or holds something not held ("": it is)."""
    if why := _why(rel, skipped):
        return why
    prefix = f"{rel}/" if rel else ""
    bad = next((s for s in sorted(skipped) if s.startswith(prefix)), None)
    if bad is not None:
        return f"holds {shown(bad.rstrip('/'))}, which {skipped[bad]}"
    if not rel and os.path.isdir(os.path.join(root, ".axon")):
        return "holds .axon, which is not snapshotted"
    return ""


def _below_skipped(rel: str, skipped: dict[str, str]) -> str:
    """Why ``rel`` is not covered when a directory above it is not held ("" when none)."""
    parent = os.path.dirname(rel)
    while parent:
        if why := _why(parent, skipped):
            return f"is in {shown(parent)}, which {why}"
        parent = os.path.dirname(parent)
    return ""


def _why(rel: str, skipped: dict[str, str]) -> str:
    """The reason ``skipped`` gives for ``rel`` (nested repositories are named with a ``/``)."""
    return skipped.get(rel) or skipped.get(f"{rel}/") or ""
