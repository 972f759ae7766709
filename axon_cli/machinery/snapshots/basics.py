"""What a session needs of snapshots before its first change: the error, the size unit and where git is.

The shadow repository's machinery (``shadow``, ``modes``, ``coverage``) is imported when the first
snapshot is taken; a session that changes nothing never loads it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

__all__ = ["MB", "SnapshotError", "Checkpointer", "find_git"]

MB = 1024 * 1024


class SnapshotError(Exception):
    """git failed or is missing; the message is one line."""


def find_git() -> str | None:
    return shutil.which("git")


class Checkpointer:
    """Keeps what a turn changes restorable (``/undo``). This base class keeps nothing.

    The session calls ``begin_turn``/``end_turn``; dispatch calls ``before_change`` before a call
    that may change files runs (a file tool: the paths it writes; a shell command: none known)."""

    def begin_turn(self, turn: int, prompt: str = "") -> None:
        return None

    def before_change(self, paths: list[Path]) -> None:
        return None

    def end_turn(self) -> None:
        return None
