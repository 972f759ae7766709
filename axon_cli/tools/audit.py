"""The audit log: one JSON line per tool call in ``.axon/audit.jsonl``."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from axon_cli.state import ensure_state_dir

__all__ = ["AuditLog"]


class AuditLog:
    def __init__(self, state_dir: Path, session_id: str) -> None:
        self.path = state_dir / "audit.jsonl"
        self._state_dir = state_dir
        self._session_id = session_id
        self._lock = threading.Lock()

    def write(self, *, tool: str, call_id: str, input: Any, decision: str, decided_by: str,
              duration_ms: int, result_chars: int, truncated: bool, error: str | None) -> None:
        record = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "session_id": self._session_id,
            "call_id": call_id, "tool": tool, "input": input, "decision": decision,
            "decided_by": decided_by, "duration_ms": duration_ms, "result_chars": result_chars,
            "truncated": truncated, "error": error,
        }
        line = json.dumps(record, ensure_ascii=False) + "\n"
        with self._lock:
            try:
                ensure_state_dir(self._state_dir)
                with open(self.path, "a", encoding="utf-8") as fh:
                    fh.write(line)
            except OSError:
                pass
