"""Dispatch of one tool call, through every stage, never raising into the loop.

parse JSON → look up spec → validate → permission (deny | ask → approver) → snapshot →
handler (timeout, cancellation) → mask secrets → truncate/spill → audit → ToolCallEnd.
The user's PreToolUse hooks run in the permission stage, PostToolUse hooks after truncation of a
call that succeeded (``tool_hooks.py``).

``prepare`` runs the stages up to the permission answer (on the caller's thread: an approver
may prompt the user); ``execute`` runs the handler and the rest (safe on a worker thread).

Every call is announced and answered the same way, whether it ran, failed before its handler or was
rejected: ``ToolCallBegin``, then the result masked, truncated and spilled
(``governance``), PostToolUse hooks for a call that ran and succeeded, the audit line, ``ToolCallEnd``
and the ``CallResult`` that goes back to the loop. ``DispatchTail`` is a base of ``Dispatcher``
(``dispatch.py``), which sets the state it reads.
"""

from __future__ import annotations

import contextvars
import json
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from axon_cli.kernel.events import Approver, DenyApprover, EventSink, Notice, ToolCallBegin, ToolCallEnd
from axon_cli.machinery.masking import mask as default_mask
from axon_cli.policy.base import AllowAll, Decision, PermissionPolicy
from axon_cli.tools.audit import AuditLog
from axon_cli.tools.calls import CallFacts, ToolCall, prepared
from axon_cli.tools.gate import TOOL_CHECK, PermissionGate
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import (
    CallEnv,
    Cancelled,
    ImagePart,
    ToolContext,
    ToolError,
    ToolOutput,
    ToolSpec,
)
from axon_cli.tools.tool_hooks import ToolHooks

if TYPE_CHECKING:
    from axon_cli.tools.tool_hooks import ToolHooks
    from axon_cli.tools.validation import format_validation_error

__all__ = ["ToolCall", "CallResult", "Prepared", "Dispatcher", "format_validation_error"]


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
    images: list[ImagePart] = field(default_factory=list)   # pictures for the model (agent/loop/images.py)


log = logging.getLogger("axon.dispatch")

INTERRUPTED = "Error: interrupted by user"


@dataclass
class Prepared:
    call: ToolCall
    spec: ToolSpec[Any]
    tool_input: BaseModel
    args: dict[str, Any]
    decision: Decision
    started: float
    facts: CallFacts = CallFacts()

    @property
    def concurrency_safe(self) -> bool:
        return self.facts.concurrency_safe


class Dispatcher:
    def __init__(self, registry: ToolRegistry, ctx: ToolContext, *, policy: PermissionPolicy | None = None,
                 approver: Approver | None = None, emit: EventSink | None = None,
                 audit: AuditLog | None = None, mask: Any = None, hooks: ToolHooks | None = None) -> None:
        self.registry = registry
        self.ctx = ctx
        self.emit: EventSink = emit or (lambda _e: None)
        self.audit = audit or AuditLog(ctx.state_dir, ctx.session_id)
        self.mask = mask or default_mask
        self.gate = PermissionGate(policy or AllowAll(), approver or DenyApprover(), ctx, self.emit, self.mask,
                                   hooks)
        self._begun: set[str] = set()
        self._ended: set[str] = set()
        self._ended_lock = threading.Lock()
        self._snapshot_failed = False

    @property
    def policy(self) -> PermissionPolicy:
        return self.gate.policy

    @property
    def hooks(self) -> ToolHooks | None:
        return self.gate.hooks

    @property
    def approver(self) -> Approver:
        return self.gate.approver

    @approver.setter
    def approver(self, approver: Approver) -> None:
        self.gate.approver = approver

    def reads_unasked(self, path: str) -> bool:
        """Whether ``read_file`` of ``path`` would run now without asking anyone: the tool is active,
        the policy allows it (rules and mode) and no PreToolUse hook could have a say."""
        if (self.hooks is not None and self.hooks.guards_tools()) or not self.registry.is_active("read_file"):
            return False
        known = prepared(self.registry, ToolCall.of("check", "read_file", {"path": path}, "native"))
        if known is None:
            return False
        try:
            decision = self.policy.check(known.spec, known.tool_input, self.ctx, facts=known.facts)
        except Exception:      # a policy that cannot decide does not allow
            return False
        return decision.behavior == "allow" and not decision.outside_sandbox

    # -- the whole pipeline -------------------------------------------------------------------
    def dispatch(self, call: ToolCall) -> CallResult:
        prepared = self.prepare(call)
        return prepared if isinstance(prepared, CallResult) else self.execute(prepared)

    # -- stages up to the permission answer ---------------------------------------------------
    def prepare(self, call: ToolCall) -> Prepared | CallResult:
        started = time.monotonic()
        try:
            args = call.parsed()
        except json.JSONDecodeError as e:
            self._begin(call, call.arguments, "")
            return self._fail(call, started, f"Error: the arguments of {call.name} are not valid JSON "
                              f"({e.msg} at position {e.pos}). Send a JSON object.", None)
        if not isinstance(args, dict):
            self._begin(call, call.arguments, "")
            return self._fail(call, started, f"Error: the arguments of {call.name} must be a JSON object, "
                              f"not {type(args).__name__}.", args)
        spec = self.registry.get(call.name)
        if spec is None or not self.registry.is_active(call.name):
            self._begin(call, args, "")
            return self._fail(call, started, self._unknown_tool(call.name, spec, args), args)
        known = prepared(self.registry, call)
        if known is None:
            try:
                spec.input_model.model_validate(args)
            except ValidationError as e:
                from axon_cli.tools.validation import format_validation_error

                self._begin(call, args, "")
                return self._fail(call, started, format_validation_error(spec.name, e, spec.json_schema(), args),
                                  args)
            self._begin(call, args, "")
            return self._fail(call, started, f"Error: the arguments of {call.name} could not be read.", args)
        described = self._describe(spec, known.tool_input)
        self._begin(call, args, described)
        verdict = self.gate.hook_verdict(call.id, spec, args)
        if verdict is not None and verdict.updated_input is not None:     # a hook rewrote the input
            call = ToolCall.of(call.id, call.name, verdict.updated_input, call.source)
            args, known = verdict.updated_input, prepared(self.registry, call)
            if known is None:
                return self._fail(call, started, f"Error: a PreToolUse hook changed the arguments of {spec.name} "
                                  "into ones that are not valid for it; the call did not run.", args)
            described = self._describe(spec, known.tool_input)
        decision = self.gate.decide(call.id, spec, known.tool_input, args, described, known.facts, verdict)
        if decision.behavior != "allow":    # a call its tool refuses fails as the handler's error would
            return self._fail(call, started, decision.reason, args, None if decision.decided_by == TOOL_CHECK
                              else decision)
        return Prepared(call, spec, known.tool_input, args, decision, started, known.facts)

    def _describe(self, spec: ToolSpec[Any], tool_input: BaseModel) -> str:
        try:
            return self.mask(spec.describe_call(tool_input))
        except Exception:
            return ""

    def _unknown_tool(self, name: str, spec: ToolSpec[Any] | None, args: Any = None) -> str:
        active = ", ".join(s.name for s in self.registry.active())
        if spec is not None:
            return (f"Error: tool {name!r} is deferred and not active yet. Call tool_search with a "
                    f"query for it to activate it. Active tools: {active}.")
        from axon_cli.tools.suggest import suggestion  # the closest names: loaded for the first unknown tool

        return f"Error: unknown tool {name!r}. Available tools: {active}.{suggestion(name, args, self.registry)}"

    # -- the handler and everything after it --------------------------------------------------
    def execute(self, p: Prepared) -> CallResult:
        error: str | None = None
        output: ToolOutput
        try:
            if self.ctx.cancel.is_set():
                raise Cancelled()
            output = self._checkpoint(p) or self._run_handler(p)
        except Cancelled:
            output = ToolOutput(INTERRUPTED, is_error=True, summary="interrupted")
        except ToolError as e:
            output = ToolOutput(f"Error: {e}", is_error=True, summary=str(e)[:80])
        except Exception as e:
            log.exception("tool %s failed", p.spec.name)
            output = ToolOutput(f"Error: {type(e).__name__}: {e}", is_error=True, summary="failed")
        if output.is_error:
            error = output.text[:200]
        return self._finish(p.call, p.started, output, p.args, p.decision, p.spec, error, ran=True)

    def _checkpoint(self, p: Prepared) -> ToolOutput | None:
        """Snapshot the workspace before a call that may change files. A call allowed without asking
        only because undo could take it back does not run without a snapshot (its error is returned)."""
        changes = p.spec.category in ("edit", "shell") and not p.facts.read_only
        if not changes:
            return None
        paths = [self.ctx.resolve(x) for x in p.spec.paths(p.tool_input)] if p.spec.category == "edit" else []
        try:
            self.ctx.checkpointer.before_change(paths)
        except Exception as e:
            if p.decision.needs_snapshot:
                return ToolOutput(f"Error: not run: it was allowed without asking only because undo could take "
                                  f"it back, but the workspace snapshot failed ({e})", is_error=True,
                                  summary="snapshot failed")
            if not self._snapshot_failed:
                self._snapshot_failed = True
                self.emit(Notice(message=f"cannot snapshot the workspace ({e}); changes made now cannot be undone"))
        return None

    def _run_handler(self, p: Prepared) -> ToolOutput:
        """The handler, given this call's id and final permission decision (``ToolContext.call``)."""
        ctx = self.ctx.for_call(CallEnv(p.call.id, p.decision))
        timeout = p.spec.timeout
        if timeout is None:
            return _as_output(p.spec.handler(p.tool_input, ctx))
        box: dict[str, Any] = {}

        def target() -> None:
            try:
                box["out"] = _as_output(p.spec.handler(p.tool_input, ctx))
            except BaseException as e:  # handed back to the caller's thread below
                box["err"] = e

        worker = threading.Thread(target=contextvars.copy_context().run, args=(target,), daemon=True,
                                  name=f"tool-{p.spec.name}")
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            raise ToolError(f"{p.spec.name} timed out after {timeout:g} s")
        if "err" in box:
            raise box["err"]
        out: ToolOutput = box["out"]
        return out

    # -- shared tail (its _begin, _fail and _finish: dispatch_tail.py) -------------------------
    def reject(self, call: ToolCall, message: str) -> CallResult:
        """Answer a call without running it (interrupted, looping, cut off)."""
        if call.id not in self._begun:
            self._begin(call, call.arguments, "")
        return self._fail(call, time.monotonic(), message, call.arguments)

    def interrupted(self, call: ToolCall) -> CallResult:
        """The answer for a call that never ran because the turn was interrupted."""
        return self.reject(call, INTERRUPTED)

    def concurrency_safe(self, call: ToolCall) -> bool:
        """Whether ``call`` may run beside others (silent: no events, no permission check).
        A call that will fail before its handler (bad JSON, unknown tool) counts as safe."""
        if self.registry.get(call.name) is None:
            return True
        known = prepared(self.registry, call)
        return True if known is None else known.facts.concurrency_safe

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


def _as_output(value: ToolOutput | str) -> ToolOutput:
    return value if isinstance(value, ToolOutput) else ToolOutput(str(value))


def __getattr__(name: str) -> Any:
    """``format_validation_error`` (re-exported) is imported when first asked for, not at start-up."""
    if name == "format_validation_error":
        from axon_cli.tools.validation import format_validation_error
        return format_validation_error
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
