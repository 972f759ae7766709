"""What axon writes to its files that can hold model or user text, masked on the way: the session
transcript, the Claude-format transcript, the audit log, the debug log, memories.

One rule for all of them: the masker (``mask``), then URL credentials shown as ``***@``
(``hide_userinfo``: a token alone in ``https://TOKEN@host`` is no shape the masker knows). A JSON
record is masked string by string (masking its JSON text could break an escape), then written as
one line with one ``write`` on an ``O_APPEND`` file, so concurrent writers never interleave and a
crash loses at most the line in flight. Spill files are masked line by line as they stream
(``tools/builtin/bash/spill_writer.py``, with the same masker) and a governed result's spill holds
text dispatch has masked already: neither is masked twice.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from axon_cli.kernel.textsafe import map_strings
from axon_cli.machinery.masking import mask
from axon_cli.machinery.masking.userinfo import hide_userinfo

__all__ = ["masked_text", "masked_value", "masked_line", "append_lines", "MaskingFormatter"]


def masked_text(text: str) -> str:
    """``text`` as axon may write it to a file."""
    return hide_userinfo(mask(text)) if text else text


def masked_value(value: Any) -> Any:
    """Every string inside a JSON-like value masked (keys included: a dict keyed by a token)."""
    return map_strings(value, masked_text)


def masked_line(record: Any, **dumps: Any) -> str:
    """One JSON line (no newline) of ``record``, masked."""
    return json.dumps(masked_value(record), ensure_ascii=False, **dumps)


def append_lines(path: Path, lines: list[str], mode: int = 0o600, sync: bool = False) -> None:
    """Append whole lines (already masked, e.g. by ``masked_line``) with one ``write``. A lone
    surrogate can only sit inside a JSON string, where its backslash escape reads back the same.
    No lines: the file is only created. ``sync``: on the disk before this returns."""
    data = ("\n".join(lines) + "\n").encode("utf-8", "backslashreplace") if lines else b""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


class MaskingFormatter(logging.Formatter):
    """A log formatter whose every record (message, arguments, traceback) is masked as a whole."""

    def format(self, record: logging.LogRecord) -> str:
        return masked_text(super().format(record))
