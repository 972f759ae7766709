"""``axon run`` output: text (answer on stdout, progress on stderr), json (one object), stream-json."""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any, TextIO

from axon_cli.kernel.events import Event, Notice, PermissionDecision, Retrying, ToolCallBegin, ToolCallEnd

__all__ = ["TextProgress", "StreamJson", "SandboxExits", "Notices", "json_result", "end_line"]

DETAIL_CHARS = 300                                       # a failure's message on a progress line
LINE_CHARS = 600
_HAS_TIME = re.compile(r"\d(?:\.\d+)?\s?(?:s|ms)\b")   # the summary already says how long


class TextProgress:
    """One progress line per tool call on stderr; the final answer goes to stdout at the end."""

    def __init__(self, err: TextIO | None = None) -> None:
        self.err = err or sys.stderr
        self._args: dict[str, str] = {}
        self._outside: dict[str, str] = {}

    def __call__(self, event: Event) -> None:
        if isinstance(event, ToolCallEnd):
            line = end_line(event, self._args.pop(event.call_id, ""))
            outside = self._outside.pop(event.call_id, None)
            self._line(line + (f" [outside the sandbox: {outside}]" if outside else ""))
        elif isinstance(event, PermissionDecision):
            if event.outside_sandbox and event.final == "allow":
                self._outside[event.call_id] = event.outside_reason
        elif isinstance(event, ToolCallBegin):
            self._args[event.call_id] = f"({event.summary})" if event.summary else ""
        elif isinstance(event, Retrying):
            self._line(f"… retrying ({event.attempt}/{event.max_attempts}) in {event.delay_s:.1f} s: {event.reason}")
        elif isinstance(event, Notice):
            self._line(f"note: {event.message}")

    def _line(self, text: str) -> None:
        progress_line(self.err, text)


def progress_line(err: TextIO, text: str) -> None:
    """One line on stderr (newlines flattened, cut at LINE_CHARS); a closed stream is ignored."""
    try:
        err.write(text.replace("\n", " ")[:LINE_CHARS] + "\n")
        err.flush()
    except (OSError, ValueError):
        pass


class Notices:
    """The run's notices for ``--output-format json``: each printed on stderr as a text run prints
    it, and kept for the result's ``notices`` (a CI log then holds them either way)."""

    def __init__(self, err: TextIO | None = None) -> None:
        self.err = err or sys.stderr
        self.lines: list[str] = []

    def __call__(self, event: Event) -> None:
        if isinstance(event, Notice):
            self.add(event.message, f"note: {event.message}")

    def add(self, notice: str, printed: str | None = None) -> None:
        self.lines.append(notice)
        progress_line(self.err, notice if printed is None else printed)


def end_line(event: ToolCallEnd, args: str = "") -> str:
    """``✓ bash(ls) — exit 0 in 0.1 s``: a failure shows the whole message (the model's text), not the
    cut summary, so a denial keeps its hint; a spilled output says where the full text is."""
    mark = "✓" if event.ok else "✗"
    detail = event.summary if event.ok else " ".join(event.output.split()) or event.summary
    if len(detail) > DETAIL_CHARS:
        detail = detail[:DETAIL_CHARS - 1] + "…"
    text = f"{mark} {event.name}{args}" + (f" — {detail}" if detail else "")
    if event.spill_path:
        text += f" [output truncated; full text in {_relative(event.spill_path)}]"
    if not _HAS_TIME.search(event.summary):
        text += f" ({event.duration_ms} ms)"
    return text


def _relative(path: str) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return path


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


class SandboxExits:
    """The calls that ran, or were denied but would have run, outside the sandbox: the JSON result's
    ``outside_sandbox`` list (``call_id``, ``tool``, ``command``, ``reason``, ``approved``)."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self._commands: dict[str, str] = {}

    def __call__(self, event: Event) -> None:
        if isinstance(event, ToolCallBegin) and isinstance(event.arguments, dict):
            self._commands[event.call_id] = str(event.arguments.get("command", event.summary))
        elif isinstance(event, PermissionDecision) and event.outside_sandbox:
            self.calls.append({"call_id": event.call_id, "tool": event.name,
                               "command": self._commands.get(event.call_id, ""), "reason": event.outside_reason,
                               "approved": event.final == "allow"})


def json_result(result: str, is_error: bool, num_turns: int, session_id: str, usage: dict[str, int] | None,
                duration_ms: int, notices: list[str], **extra: Any) -> str:
    """The one JSON object of ``--output-format json``; ``usage`` None: a request's usage was not reported."""
    obj: dict[str, Any] = {"result": result, "is_error": is_error, "num_turns": num_turns,
                           "session_id": session_id, "usage": usage, "duration_ms": duration_ms,
                           "notices": notices}
    obj.update(extra)
    return json.dumps(obj, ensure_ascii=False)
