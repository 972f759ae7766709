"""The ladder of permission modes, each running everything the one before it runs, and more.

- ``read-only``: read-only calls run; everything else is denied (the sandbox is read-only too).
- ``default``: read-only calls run; edits ask (with the diff); destructive calls ask; other shell
  commands that the sandbox confines and a snapshot can undo (tests, builds, scripts, new files)
  run ("sandboxed, undoable").
- ``accept-edits``: as ``default``, and edits run (file tools, in-place edits by shell commands).
- ``auto``: as ``accept-edits``, and every call the sandbox confines and a snapshot can undo runs,
  deletes included. Without a working sandbox and snapshot it acts as ``accept-edits``.
- ``yolo``: everything runs (deny rules still apply).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from axon_cli.permissions.decision_context import Containment

__all__ = ["MODES", "DESCRIPTIONS", "rank", "effective_mode", "auto_fallback_note", "wider_modes"]

MODES = ("read-only", "default", "accept-edits", "auto", "yolo")
DESCRIPTIONS = {
    "read-only": "read-only calls only",
    "default": "asks before edits and before every destructive call",
    "accept-edits": "file edits run without asking; destructive calls still ask",
    "auto": "whatever the sandbox confines and a snapshot can undo runs without asking, deletes included",
    "yolo": "every call runs without asking",
}


def rank(mode: str) -> int:
    """The mode's place on the ladder (an unknown mode ranks as ``default``)."""
    return MODES.index(mode) if mode in MODES else 1


def wider_modes(mode: str) -> tuple[str, ...]:
    return MODES[rank(mode) + 1:]


def effective_mode(mode: str, containment: Containment | None) -> str:
    """``auto`` acts as ``accept-edits`` where no sandbox confines commands or no snapshot holds the
    workspace; every other mode is itself."""
    if mode == "auto" and (containment is None or not containment.applies):
        return "accept-edits"
    return mode


def auto_fallback_note(mode: str, containment: Containment | None) -> str | None:
    """The one line said when ``auto`` cannot be itself here, or None."""
    if effective_mode(mode, containment) == mode:
        return None
    return ("mode auto needs a working sandbox (bubblewrap) and snapshots; without them it acts as "
            "accept-edits: destructive and unconfined commands ask")
