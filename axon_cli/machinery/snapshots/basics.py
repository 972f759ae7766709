"""What a session needs of snapshots before its first change: the error, the size unit and where git is.

The shadow repository's machinery (``shadow``, ``modes``, ``coverage``) is imported when the first
snapshot is taken; a session that changes nothing never loads it.
"""

from __future__ import annotations

import shutil

__all__ = ["MB", "SnapshotError", "find_git"]

MB = 1024 * 1024


class SnapshotError(Exception):
    """git failed or is missing; the message is one line."""


def find_git() -> str | None:
    return shutil.which("git")
