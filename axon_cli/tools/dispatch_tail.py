"""The shared tail of dispatch: how every call is announced and answered, whether it ran, failed
before its handler or was rejected. ``ToolCallBegin``, then the result masked, truncated and spilled
(``governance``), PostToolUse hooks for a call that ran and succeeded, the audit line, ``ToolCallEnd``
and the ``CallResult`` that goes back to the loop. ``DispatchTail`` is a base of ``Dispatcher``
(``dispatch.py``), which sets the state it reads.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from axon_cli.kernel.events import EventSink, ToolCallBegin, ToolCallEnd
from axon_cli.policy.base import Decision
from axon_cli.tools.audit import AuditLog
from axon_cli.tools.calls import ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ImagePart, ToolContext, ToolOutput, ToolSpec

if TYPE_CHECKING:
    from axon_cli.tools.tool_hooks import ToolHooks

__all__ = ["CallResult", "DispatchTail"]


@dataclass
class CallResult:
    call_id: str
    name: str
    content: str                      # what goes back to the model
    ok: bool
    duration_ms: int = 0
    truncated: bool = False
    spill_path: str | None = None
    decision: str = "allow"
    decided_by: str = ""
    display: dict[str, Any] = field(default_factory=dict)
    found_nothing: bool = False       # it worked and found nothing (no match, no file): say what next
    images: list[ImagePart] = field(default_factory=list)   # pictures for the model (loop/images.py)


class DispatchTail:
    """Begins and ends the calls of a ``Dispatcher``: events, masking, governance, audit."""

    registry: ToolRegistry
    ctx: ToolContext
    emit: EventSink
    audit: AuditLog
    mask: Any
    _begun: set[str]
    _ended: set[str]
    _ended_lock: threading.Lock

    if TYPE_CHECKING:
        @property
        def hooks(self) -> ToolHooks | None: ...

    def _fail(self, call: ToolCall, started: float, message: str, args: Any,
              decision: Decision | None = None) -> CallResult:
        output = ToolOutput(message, is_error=True, summary=message.split("\n", 1)[0][:100])
        spec = self.registry.get(call.name)
        return self._finish(call, started, output, args, decision, spec, message[:200])

    def _finish(self, call: ToolCall, started: float, output: ToolOutput, args: Any,
                decision: Decision | None, spec: ToolSpec[Any] | None, error: str | None,
                ran: bool = False) -> CallResult:
        with self._ended_lock:
            if call.id in self._ended:   # already answered (interrupted); the late result is dropped
                return CallResult(call.id, call.name, self.mask(output.text), not output.is_error)
            self._ended.add(call.id)
        text = self.mask(output.text)
        limit = spec.max_result_chars if spec else 50_000
        from axon_cli.tools.governance import govern  # truncation and spill: loaded with the first result

        try:
            governed = govern(text, limit, self.ctx.state_dir, call.name, output.spill_path)
        except OSError as e:
            from axon_cli.tools.governance import truncate_middle

            governed_text, _ = truncate_middle(text, limit)
            governed = type("G", (), {"text": governed_text + f"\n[could not spill: {e}]",
                                      "truncated": True, "spill_path": None})()
        result_text = governed.text
        if ran and not output.is_error and self.hooks is not None and isinstance(args, dict):
            note = self.hooks.after_tool(call.id, call.name, args, governed.text)
            result_text += f"\n\n{self.mask(note)}" if note else ""
        duration_ms = int((time.monotonic() - started) * 1000)
        behavior = decision.behavior if decision else "n/a"
        decided_by = decision.decided_by if decision else "n/a"
        outside = decision.outside_sandbox if decision and decision.behavior == "allow" else None
        self.audit.write(tool=call.name, call_id=call.id, input=self._masked_args(args), decision=behavior,
                         decided_by=decided_by, duration_ms=duration_ms, result_chars=len(text),
                         truncated=governed.truncated, error=self.mask(error) if error else None,
                         outside_sandbox=outside)
        summary = self.mask(output.summary)
        display = output.display
        if display:
            display = self._masked_args(display)
        self.emit(ToolCallEnd(call_id=call.id, name=call.name, ok=not output.is_error, output=result_text,
                              summary=summary, duration_ms=duration_ms, truncated=governed.truncated,
                              spill_path=governed.spill_path, display=display))
        return CallResult(call.id, call.name, result_text, not output.is_error, duration_ms,
                          governed.truncated, governed.spill_path, behavior, decided_by, display,
                          output.found_nothing and not output.is_error, list(output.images))

    def _masked_args(self, args: Any) -> Any:
        """``args`` with secrets masked: the JSON text is masked whole (a rule may need a key and its
        value together) and read back only when masking changed it."""
        try:
            text = json.dumps(args)
            masked = self.mask(text)
            return args if masked == text else json.loads(masked)
        except (TypeError, ValueError):
            return self.mask(str(args))

    def _begin(self, call: ToolCall, args: Any, summary: str) -> None:
        self._begun.add(call.id)
        shown = self._masked_args(args) if isinstance(args, dict) else self.mask(str(args))
        self.emit(ToolCallBegin(call_id=call.id, name=call.name, arguments=shown, summary=summary,
                                source=call.source))
