"""Workspace snapshots and undo: every change a turn makes — file tools and shell commands alike —
can be taken back.

- ``basics``: the error and the git lookup (the rest loads when the first snapshot is taken).
- ``shadow``: the shadow git repository (in axon's user state dir, never the project's ``.git``);
  running git in it, its trees and blobs.
- ``store``: a project's snapshots and the log of turns.
- ``ignored``: which git-ignored files a snapshot holds; the regenerable directories it leaves out.
- ``checkpointer``: a session's turns (snapshot before the first change, and at the end).
- ``coverage``: which paths undo could not bring back (for the permission policy).
- ``undo``: restoring, file by file, and refusing where someone changed a file since (``undo_dirs``:
  its directory steps).
"""

from typing import TYPE_CHECKING, Any

from axon_cli.machinery.snapshots.basics import SnapshotError
from axon_cli.machinery.snapshots.checkpointer import TurnSnapshots
from axon_cli.machinery.snapshots.store import ProjectSnapshots

if TYPE_CHECKING:
    from axon_cli.machinery.snapshots.report import Outcome, UndoReport
    from axon_cli.machinery.snapshots.undo import undo_turns

NOTHING_TO_UNDO = "nothing to undo: no turn in this project changed files (or all were undone)"

__all__ = ["ProjectSnapshots", "TurnSnapshots", "SnapshotError", "Outcome", "UndoReport", "undo_turns",
           "NOTHING_TO_UNDO"]


def __getattr__(name: str) -> Any:
    """Undo's machinery (restoring, reporting) is imported when undo is first used, not at start-up."""
    if name == "undo_turns":
        from axon_cli.machinery.snapshots.undo import undo_turns
        return undo_turns
    if name in ("Outcome", "UndoReport"):
        from axon_cli.machinery.snapshots import report
        return getattr(report, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
