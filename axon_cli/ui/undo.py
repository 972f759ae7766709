"""``axon undo [--list] [N]``: put back what the last turn (or N turns) changed, without a session.

The session whose turn was undone gets the same note the REPL's ``/undo`` gives the model, in its
transcript, so ``axon run --continue`` (or ``--resume``) tells the model its changes are gone.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from axon_cli.config import LoadedSettings
from axon_cli.errors import AxonError
from axon_cli.session.transcript import Transcript, sessions_dir
from axon_cli.snapshots import ProjectSnapshots, UndoReport, list_lines, undo_turns

__all__ = ["undo_command"]


def undo_command(loaded: LoadedSettings, root: Path, count: int, list_only: bool) -> list[str]:
    """The lines to print; raises AxonError (exit 1) when undo cannot work here (no git, turned off)."""
    store = ProjectSnapshots.for_settings(root, loaded.settings)
    why = store.unavailable()
    if why is not None:
        raise AxonError(f"undo is not available: {why}")
    if list_only:
        return list_lines(store)
    reports = undo_turns(store, count)
    if not reports:
        return list_lines(store)[:1]
    for report in reports:
        _tell_the_session(root, report)
    return [line for r in reports for line in r.lines()]


def _tell_the_session(root: Path, report: UndoReport) -> None:
    changed = [o.line().strip() for o in report.outcomes if o.action != "skipped"]
    session = str(report.record.get("session", ""))
    state_dir = root / ".axon"
    if not changed or not session or not (sessions_dir(state_dir) / f"{session}.jsonl").is_file():
        return
    note = {"role": "user", "content": "[axon: the user undid your changes of the last turn: "
            + "; ".join(changed) + ". Read files again before editing them.]"}
    with contextlib.suppress(OSError):
        Transcript(state_dir, session, exists=True).append(note)
