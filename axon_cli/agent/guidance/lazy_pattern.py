"""A regular expression compiled the first time it is used.

The answer checks hold a few dozen long patterns, and a run uses only those its task and answers
reach (a plain question never asks whether a deletion was claimed). Compiling them all at import
cost ``axon run`` about ten milliseconds of start-up; compiled on first use, each costs the same
once, and only when a check reads it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator

__all__ = ["LazyPattern"]

_LOCK = threading.Lock()


class LazyPattern:
    """What the checks use of ``re.Pattern`` (``search``, ``match``, ``finditer``, ``pattern``)."""

    __slots__ = ("pattern", "flags", "_compiled")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            with _LOCK:
                if self._compiled is None:
                    self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def search(self, text: str) -> re.Match[str] | None:
        return self.compiled.search(text)

    def match(self, text: str) -> re.Match[str] | None:
        return self.compiled.match(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text)
