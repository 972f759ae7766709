"""``axon run`` output: text (answer on stdout, progress on stderr), json (one object), stream-json."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from axon_cli.events import (
    Event,
    Notice,
    Retrying,
    ToolCallBegin,
    ToolCallEnd,
)

__all__ = ["TextProgress", "StreamJson", "json_result"]


class TextProgress:
    """One progress line per tool call on stderr; the final answer goes to stdout at the end."""

    def __init__(self, err: TextIO | None = None) -> None:
        self.err = err or sys.stderr
        self._args: dict[str, str] = {}

    def __call__(self, event: Event) -> None:
        if isinstance(event, ToolCallEnd):
            mark = "✓" if event.ok else "✗"
            summary = f" — {event.summary}" if event.summary else ""
            self._line(f"{mark} {event.name}{self._args.pop(event.call_id, '')}{summary} "
                       f"({event.duration_ms} ms)")
        elif isinstance(event, ToolCallBegin):
            self._args[event.call_id] = f"({event.summary})" if event.summary else ""
        elif isinstance(event, Retrying):
            self._line(f"… retrying ({event.attempt}/{event.max_attempts}) in {event.delay_s:.1f} s: {event.reason}")
        elif isinstance(event, Notice):
            self._line(f"note: {event.message}")

    def _line(self, text: str) -> None:
        try:
            self.err.write(text.replace("\n", " ")[:300] + "\n")
            self.err.flush()
        except (OSError, ValueError):
            pass


class StreamJson:
    """Every event as one JSON object a line on stdout."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout

    def __call__(self, event: Event) -> None:
        try:
            self.out.write(event.to_json() + "\n")
            self.out.flush()
        except (OSError, ValueError):
            pass


def json_result(result: str, is_error: bool, num_turns: int, session_id: str, usage: dict[str, int],
                duration_ms: int, **extra: Any) -> str:
    obj: dict[str, Any] = {"result": result, "is_error": is_error, "num_turns": num_turns,
                           "session_id": session_id, "usage": usage, "duration_ms": duration_ms}
    obj.update(extra)
    return json.dumps(obj, ensure_ascii=False)
