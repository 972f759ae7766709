"""Output governance: head+tail truncation with the full text spilled to a file."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from axon_cli.state import ensure_state_dir

__all__ = ["Governed", "govern", "truncate_middle"]

HEAD_SHARE = 0.25   # most of the budget goes to the tail: exit codes, summaries and errors live there


@dataclass
class Governed:
    text: str
    truncated: bool
    spill_path: str | None


def truncate_middle(text: str, limit: int) -> tuple[str, int]:
    """Keep a head and a (larger) tail of ``text`` within about ``limit`` chars."""
    if len(text) <= limit:
        return text, 0
    head_n = int(limit * HEAD_SHARE)
    tail_n = limit - head_n
    cut = len(text) - head_n - tail_n
    return f"{text[:head_n]}\n[… {cut} chars truncated …]\n{text[-tail_n:]}", cut


def govern(text: str, limit: int, state_dir: Path, tool: str, spill_path: str | None = None) -> Governed:
    """Truncate ``text`` to ``limit``; when cut, the full text is (or already was) spilled to a file."""
    if len(text) <= limit:
        return Governed(text, False, spill_path)
    if spill_path is None:
        spill_dir = ensure_state_dir(state_dir) / "tool-results"
        spill_dir.mkdir(parents=True, exist_ok=True)
        path = spill_dir / f"{time.strftime('%Y%m%d-%H%M%S')}-{tool}-{uuid.uuid4().hex[:8]}.txt"
        path.write_text(text, encoding="utf-8")
        spill_path = str(path)
    body, _ = truncate_middle(text, limit)
    note = (
        f"\n[full output ({len(text)} chars) saved to {spill_path}; "
        f"page through it with read_file(path, offset, limit)]"
    )
    return Governed(body + note, True, spill_path)
