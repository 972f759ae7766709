"""The permission modes' names, lowest first: the values the ``mode`` setting takes. What each one lets
run, and the one owner of a session's current mode, are the policy's (``policy/modes.py``)."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["Mode", "MODES"]

Mode = Literal["read-only", "plan", "default", "accept-edits", "auto", "yolo"]
MODES: tuple[str, ...] = get_args(Mode)
