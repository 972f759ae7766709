"""The audit log: one JSON line per tool call in ``.axon/audit.jsonl``.

Fields: ``time`` (UTC, ISO 8601 with milliseconds), ``session_id``, ``call_id``, ``tool``, ``input``
(already masked by dispatch; long strings shortened), ``decision`` (allow | deny | n/a when the
call failed before the permission check), ``decided_by``, ``duration_ms``, ``result_chars``,
``truncated``, ``error`` (null on success), and ``outside_sandbox`` (why) for a call that ran outside
the ``auto`` sandbox. A hook run is a line with ``hook`` (the event) instead of
``tool``: ``command``, ``source`` (its config file), ``for_tool``/``for_call_id`` (the call it ran
for, if any), ``exit_code`` (null when killed), ``outcome`` (ok | block | error | timeout), ``decision``
(allow | deny | ask | null), ``duration_ms``, ``error``. Each line is one ``write`` on an ``O_APPEND`` file, so
lines from concurrent calls or processes never interleave. A failing log never fails a call.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from axon_cli.kernel.state import ensure_state_dir
from axon_cli.machinery.masking.written import append_lines, masked_line

__all__ = ["AuditLog", "MAX_INPUT_STRING", "shorten"]

log = logging.getLogger("axon.audit")
MAX_INPUT_STRING = 2000     # longer string values in the logged input are cut (the log stays small)


def shorten(value: Any, limit: int = MAX_INPUT_STRING) -> Any:
    """``value`` with every string longer than ``limit`` cut, noting the original length."""
    if isinstance(value, str):
        return value if len(value) <= limit else f"{value[:limit]}…[{len(value)} chars]"
    if isinstance(value, dict):
        return {str(k): shorten(v, limit) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [shorten(v, limit) for v in value]
    return value


class AuditLog:
    def __init__(self, state_dir: Path, session_id: str) -> None:
        self.path = state_dir / "audit.jsonl"
        self._state_dir = state_dir
        self._session_id = session_id
        self._lock = threading.Lock()
        self._warned = False

    def write(self, *, tool: str, call_id: str, input: Any, decision: str, decided_by: str,
              duration_ms: int, result_chars: int, truncated: bool, error: str | None,
              outside_sandbox: str | None = None) -> None:
        self._append({"call_id": call_id, "tool": tool, "input": shorten(input), "decision": decision,
                      "decided_by": decided_by, "duration_ms": duration_ms, "result_chars": result_chars,
                      "truncated": truncated, "error": error,
                      **({"outside_sandbox": outside_sandbox} if outside_sandbox else {})})

    def write_hook(self, *, event: str, command: str, source: str, tool: str | None, call_id: str | None,
                   exit_code: int | None, outcome: str, decision: str | None, duration_ms: int,
                   error: str | None) -> None:
        """One hook run (the user's hooks from config.toml)."""
        self._append({"hook": event, "command": shorten(command), "source": source, "for_tool": tool,
                      "for_call_id": call_id, "exit_code": exit_code, "outcome": outcome, "decision": decision,
                      "duration_ms": duration_ms, "error": error})

    def _append(self, fields: dict[str, Any]) -> None:
        record = {"time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
                  "session_id": self._session_id, **fields}
        line = masked_line(record, default=str)     # a hook's command, an error: masked like the input
        with self._lock:
            try:
                ensure_state_dir(self._state_dir)
                append_lines(self.path, [line], mode=0o644)
            except OSError as e:
                if not self._warned:
                    self._warned = True
                    log.warning("cannot write the audit log %s: %s", self.path, e)

    def read(self) -> list[dict[str, Any]]:
        """Every record (for tests and ``axon`` commands); lines that are not JSON objects (or nested
        too deeply) are skipped."""
        from axon_cli.kernel.json_lines import line_object

        try:
            lines = self.path.read_bytes().decode("utf-8", "replace").splitlines()
        except OSError:
            return []
        return [record for line in lines if (record := line_object(line)) is not None]
