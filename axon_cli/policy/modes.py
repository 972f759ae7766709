"""The ladder of permission modes, each running everything the one before it runs, and more.

- ``read-only``: read-only calls run; everything else is denied (the sandbox is read-only too).
- ``plan``: as ``read-only`` (a refusal tells the model to put the change in its plan instead), and
  ``web_fetch`` asks as in ``default``; the model is told to end its turn with a plan (chat then
  asks whether to carry it out).
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

from axon_cli.policy.base import Decision
from axon_cli.settings.mode_names import MODES

if TYPE_CHECKING:
    from axon_cli.policy.decision_context import Containment

__all__ = ["MODES", "DESCRIPTIONS", "CHANGES_NOTHING", "DEFAULT_RANK", "CurrentMode", "rank", "effective_mode",
           "auto_fallback_note", "wider_modes", "changes_nothing", "refuse_change"]

DEFAULT_RANK = MODES.index("default")
CHANGES_NOTHING = ("read-only", "plan")     # the modes that deny every call that is not read-only
DESCRIPTIONS = {
    "read-only": "read-only calls only",
    "plan": "read-only calls only; the model investigates and ends with a plan for you to approve",
    "default": "asks before edits and before every destructive call",
    "accept-edits": "file edits run without asking; destructive calls still ask",
    "auto": "whatever the sandbox confines and a snapshot can undo runs without asking, deletes included",
    "yolo": "every call runs without asking",
}


class CurrentMode:
    """THE permission mode of a session, its one owner: the policy decides every call in ``value``;
    the system prompt, hooks, the transcript, the status line and ACP read it here; ``/mode``,
    Shift-Tab, plan approval, ACP and resume change it through ``set`` (nothing else holds a copy:
    the settings keep the mode a session *started* from)."""

    def __init__(self, mode: str = "default", source: str = "default") -> None:
        self.value = mode if mode in MODES else "default"
        self.source = source

    def set(self, mode: str, source: str = "/mode") -> None:
        """Change it; an unknown mode is a ``ConfigError`` and changes nothing."""
        if mode not in MODES:
            from axon_cli.kernel.errors import ConfigError

            raise ConfigError(f"unknown mode {mode!r} (one of {', '.join(MODES)})")
        self.value, self.source = mode, source

    def __str__(self) -> str:
        return self.value


def rank(mode: str) -> int:
    """The mode's place on the ladder (an unknown mode ranks as ``default``)."""
    return MODES.index(mode) if mode in MODES else DEFAULT_RANK


def changes_nothing(mode: str) -> bool:
    """Whether ``mode`` denies every call that is not read-only (``read-only`` and ``plan``)."""
    return mode in CHANGES_NOTHING


def refuse_change(subject: str, mode: str, destructive: bool, what: str = "is not read-only") -> Decision:
    """The denial of a call that would change something, in a mode that changes nothing: in ``plan``
    it tells the model to propose the change in its plan (wording in ``kernel/prompts/plan_mode.md``)."""
    reason = f"{subject} {what}"
    if mode == "plan":
        from axon_cli.kernel.prompts import load_sections

        reason += ": " + load_sections("plan_mode.md")["refused"]
    return Decision("deny", reason, f"mode {mode}", destructive)


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
