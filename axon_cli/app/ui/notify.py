"""Ringing the terminal when chat needs the user: a confirmation waits, or a long turn has ended.

``notify = "bell"`` (the default) writes BEL, which terminals turn into a sound, a badge, a tab
marker or a bounce. ``notify = "osc"`` asks for a desktop notification with the message, in the
escape the terminal understands (found from ``TERM_PROGRAM``/``TERM`` and the terminals' own
variables): OSC 9 (iTerm2, WezTerm, Ghostty, Windows Terminal), OSC 99 (kitty), OSC 777 (foot,
rxvt-unicode); any other terminal gets BEL. ``"off"`` writes nothing. Only the REPL calls this,
and only when its output is a terminal; the core never prints.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TextIO

__all__ = ["BEL", "Notifier", "sequence", "osc_kind"]

BEL = "\x07"
ESC = "\x1b"
ST = ESC + "\\"
_OSC9_PROGRAMS = {"iterm.app", "wezterm", "ghostty"}


def osc_kind(env: Mapping[str, str]) -> str:
    """Which notification escape this terminal understands: "9", "99", "777" or "" (none known)."""
    program = env.get("TERM_PROGRAM", "").lower()
    term = env.get("TERM", "").lower()
    if program in _OSC9_PROGRAMS or env.get("WT_SESSION"):
        return "9"
    if "kitty" in term or env.get("KITTY_WINDOW_ID"):
        return "99"
    if term.startswith("foot") or "rxvt" in term:
        return "777"
    return ""


def _clean(text: str) -> str:
    """Text that cannot end the escape sequence early: no control characters, no ``;``."""
    return "".join(ch for ch in text if ch.isprintable() and ch != ";")[:200]


def sequence(style: str, message: str, env: Mapping[str, str]) -> str:
    """The bytes to write for ``style`` ("off", "bell" or "osc")."""
    if style == "off":
        return ""
    kind = osc_kind(env) if style == "osc" else ""
    body = _clean(message)
    if kind == "9":
        return f"{ESC}]9;{body}{BEL}"
    if kind == "99":
        return f"{ESC}]99;;{body}{ST}"
    if kind == "777":
        return f"{ESC}]777;notify;axon;{body}{BEL}"
    return BEL


class Notifier:
    """Writes the notification for one REPL (``style`` and ``after`` from the settings)."""

    def __init__(self, style: str, after: float, out: TextIO | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        self.style = style
        self.after = after
        self.out = out if out is not None else sys.stdout
        self.env = env if env is not None else os.environ

    def ring(self, message: str) -> None:
        """Write the sequence now, if notifications are on and the output is a terminal."""
        seq = sequence(self.style, message, self.env)
        if not seq:
            return
        try:
            if not self.out.isatty():
                return
            self.out.write(seq)
            self.out.flush()
        except (OSError, ValueError):     # a closed or gone terminal: nothing to ring
            pass

    def turn_ended(self, seconds: float) -> None:
        """At the end of a turn: ring if it took at least ``after`` seconds."""
        if seconds >= self.after:
            self.ring(f"axon finished ({seconds:.0f} s)")
