"""Output governance: head+tail truncation, with the full output spilled under ``.axon/tool-results/``.

Budget semantics: a result longer than ``limit`` becomes a body of at most ``limit`` characters —
``head + "\n" + "[… N chars truncated …]" + "\n" + tail`` where N is exactly the number of characters
of the original left out between head and tail, and the tail gets most of the budget (exit codes, test summaries and errors are at the end) — followed by a note of
at most ``NOTE_MAX`` characters naming the spill file and how to page through it with read_file.

``builtin/shell/capture.StreamCapture`` does the same for output that arrives in pieces (a running command).
"""

from __future__ import annotations

import os
import re
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from axon_cli.kernel.state import atomic_write, ensure_state_dir

__all__ = ["Governed", "govern", "truncate_middle", "head_tail", "marker", "spill_file_path",
           "HEAD_SHARE", "NOTE_MAX"]

HEAD_SHARE = 0.25       # of the budget; the rest goes to the tail
NOTE_MAX = 400          # the note after a truncated body is at most this long
_SNAP = 0.2             # cut at a line boundary when one lies within this share of a window's edge


@dataclass
class Governed:
    text: str
    truncated: bool
    spill_path: str | None


def marker(cut: int) -> str:
    return f"[… {cut} chars truncated …]"


def head_tail(head: str, tail: str, total: int, limit: int) -> str:
    """The body for a text of ``total`` chars (> ``limit``) whose prefix is ``head`` and suffix ``tail``.

    At most ``limit`` chars: head, marker, tail (the larger part), cut at line boundaries nearby.
    """
    return _head_tail(head, tail, total, limit)[0]


def _head_tail(head: str, tail: str, total: int, limit: int) -> tuple[str, int]:
    reserved = len(marker(total)) + 2            # the marker with the most digits, two newlines
    room = limit - reserved
    if room < 2:
        kept = tail[-limit:] if limit > 0 else ""
        return kept, total - len(kept)
    head_n = int(room * HEAD_SHARE)
    tail_n = room - head_n
    h, t = head[:head_n], tail[-tail_n:]
    nl = h.rfind("\n")
    if nl >= 0 and len(h) - nl <= head_n * _SNAP:
        h = h[:nl]                               # the newline itself is counted as cut
    nl = t.find("\n")
    if 0 <= nl < tail_n * _SNAP:
        t = t[nl + 1:]
    cut = total - len(h) - len(t)
    return f"{h}\n{marker(cut)}\n{t}", cut


def truncate_middle(text: str, limit: int) -> tuple[str, int]:
    """``text`` cut to at most ``limit`` chars (head + marker + tail); returns it and the chars cut."""
    if len(text) <= limit:
        return text, 0
    return _head_tail(text, text, len(text), limit)


def spill_file_path(state_dir: Path, tool: str) -> Path:
    """A fresh file under ``.axon/tool-results/`` (created with ``.axon/.gitignore`` if needed)."""
    spill_dir = ensure_state_dir(state_dir) / "tool-results"
    spill_dir.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^\w.-]+", "_", tool)[:60] or "tool"
    return spill_dir / f"{time.strftime('%Y%m%d-%H%M%S')}-{safe}-{uuid.uuid4().hex[:8]}.txt"


def _shown_path(path: str, state_dir: Path) -> str:
    try:
        return str(Path(path).relative_to(state_dir.parent))
    except ValueError:
        return path


def _note(path: str, size: str, state_dir: Path) -> str:
    shown = _shown_path(path, state_dir)
    if len(shown) > 200:
        shown = path if len(path) <= 200 else "…" + path[-199:]
    return (f"\n[full output ({size}) saved to {shown}; page through it with "
            f"read_file(path=\"{shown}\", offset=LINE, limit=LINES)]")


def govern(text: str, limit: int, state_dir: Path, tool: str, spill_path: str | None = None) -> Governed:
    """Fit ``text`` into ``limit`` chars plus a note. A handler that set ``spill_path`` has already
    saved its full output there (and cut ``text`` itself): the result then counts as truncated."""
    if spill_path is None and len(text) <= limit:
        return Governed(text, False, None)
    body = text if len(text) <= limit else truncate_middle(text, limit)[0]
    if spill_path is not None:
        try:
            size = f"{os.path.getsize(spill_path)} bytes"
        except OSError:
            size = "size unknown"
        return Governed(body + _note(spill_path, size, state_dir), True, spill_path)
    try:
        path = spill_file_path(state_dir, tool)
        atomic_write(path, text.encode("utf-8", "replace"))
    except OSError as e:
        return Governed(body + f"\n[the full output ({len(text)} chars) could not be saved: {e.strerror}]",
                        True, None)
    return Governed(body + _note(str(path), f"{len(text)} chars", state_dir), True, str(path))
