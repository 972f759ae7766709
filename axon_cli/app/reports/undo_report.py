"""``axon undo [--list] [N]``: put back what the last turn (or N turns) changed, without a session,
and the list of the turns that can be undone (``/undo`` in the REPL says the same).

The session whose turn was undone gets the same note the REPL's ``/undo`` gives the model, in its
transcript, so ``axon run --continue`` (or ``--resume``) tells the model its changes are gone.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from axon_cli.kernel.errors import AxonError
from axon_cli.machinery.snapshots import (
    NOTHING_TO_UNDO,
    ProjectSnapshots,
    SnapshotError,
    UndoReport,
    undo_turns,
)
from axon_cli.machinery.snapshots.permission_bits import shown
from axon_cli.session.conversation.session_lock import in_use_elsewhere
from axon_cli.session.conversation.transcript import SessionInUse, Transcript, sessions_dir
from axon_cli.settings.config import LoadedSettings

__all__ = ["undo_command", "list_lines"]


def undo_command(loaded: LoadedSettings, root: Path, count: int, list_only: bool) -> list[str]:
    """The lines to print; raises AxonError (exit 1) when undo cannot work here (no git, turned off)."""
    store = ProjectSnapshots.for_settings(root, loaded.settings)
    why = store.unavailable()
    if why is not None:
        raise AxonError(f"undo is not available: {why}")
    if list_only:
        return list_lines(store)
    if (busy := in_use_elsewhere(sessions_dir(root / ".axon"), store.sessions_of_last(count), "undone")) is not None:
        raise AxonError(busy)
    try:
        reports = undo_turns(store, count)
    except (SnapshotError, OSError) as e:
        raise AxonError(f"undo failed: {store.trouble(e)}") from None
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
    writer = Transcript(state_dir, session, exists=True)
    with contextlib.suppress(OSError, SessionInUse):     # taken by an axon that started meanwhile: not told
        writer.append(note)
    writer.release()


def list_lines(store: ProjectSnapshots) -> list[str]:
    """``axon undo --list``: the turns that can be undone, newest first, numbered as ``axon undo N``."""
    pending = [r for r in store.records() if not r.get("undone")][::-1]
    if not pending:
        return [NOTHING_TO_UNDO]
    lines = []
    for n, r in enumerate(pending, 1):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.get("at", 0)))
        files = ", ".join(shown(f) for f in r.get("files", [])[:5]) + (" …" if r.get("changed", 0) > 5 else "")
        lines.append(f"{n:>3}. {when}  session {r['session']} turn {r['turn']}: {r.get('prompt', '')[:60]}")
        lines.append(f"       {r.get('changed', 0)} file(s): {files}")
    return lines
