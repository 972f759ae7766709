"""Text that can always be encoded as UTF-8.

A file name that is not UTF-8 arrives from ``os.fsdecode`` with lone surrogates (``\\udcff`` for
the byte 0xff); a model can send ``"\\udc80"`` escapes too. Such a string fails ``.encode("utf-8")``
(a transcript, a terminal, an HTTP body). ``escape_surrogates`` writes those bytes as ``\\xff`` (and
any other lone surrogate as ``\\udXXX``), so the text shows what the name holds and never crashes a
writer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["escape_surrogates", "escape_surrogates_in", "map_strings"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    """``text`` with lone surrogates written as backslash escapes (the same object when it has none)."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:        # a surrogate surrogateescape did not make (\ud800)
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def escape_surrogates_in(value: Any) -> Any:
    """A JSON-like value with every string (keys too) passed through ``escape_surrogates``."""
    return map_strings(value, escape_surrogates)


def map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    """A JSON-like value with ``fn`` applied to every string in it, keys too (tuples become lists)."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        return {fn(k) if isinstance(k, str) else k: map_strings(v, fn) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [map_strings(v, fn) for v in value]
    return value
