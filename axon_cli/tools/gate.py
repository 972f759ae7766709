"""The permission stage of dispatch: ask the policy (and the user's PreToolUse hooks, see
``tool_hooks.combine``), and the approver when the result is "ask".

A denial becomes the reason the model reads ("Permission denied: … (rule or mode that decided)");
an approval with "always" writes the narrowest rule through the policy. A call that would run
outside the sandbox says so in the request, the decision event and a denial; approved, the final
decision keeps ``outside_sandbox`` for the handler (dispatch hands it over in ``ToolContext.call``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from axon_cli.kernel.events import (
    ApprovalAnswer,
    ApprovalRequest,
    ApprovalRequested,
    Approver,
    EventSink,
    PermissionDecision,
)
from axon_cli.policy.base import Decision, PermissionPolicy
from axon_cli.tools.calls import CallFacts
from axon_cli.tools.spec import ToolContext, ToolError, ToolSpec
from axon_cli.tools.tool_hooks import HookVerdict, ToolHooks, combine

__all__ = ["PermissionGate", "TOOL_CHECK"]

TOOL_CHECK = "the tool's own check"     # decided_by of a call refused before asking: not a permission denial

log = logging.getLogger("axon.dispatch")


class PermissionGate:
    def __init__(self, policy: PermissionPolicy, approver: Approver, ctx: ToolContext, emit: EventSink,
                 mask: Callable[[str], str], hooks: ToolHooks | None = None) -> None:
        self.policy = policy
        self.hooks = hooks
        self.approver = approver
        self.ctx = ctx
        self.emit = emit
        self.mask = mask

    def hook_verdict(self, call_id: str, spec: ToolSpec[Any], args: dict[str, Any]) -> HookVerdict | None:
        """What the user's PreToolUse hooks say of the call (None: no hooks, or none decided)."""
        return self.hooks.before_tool(call_id, spec.name, args) if self.hooks is not None else None

    def decide(self, call_id: str, spec: ToolSpec[Any], tool_input: BaseModel, args: dict[str, Any],
               summary: str, facts: CallFacts | None = None, verdict: HookVerdict | None = None) -> Decision:
        """The final allow/deny for one validated call: the policy (reading the call's ``facts``,
        computed once) with the hooks' ``verdict`` (``hook_verdict``), then the approver if it asks —
        unless the tool's own ``check`` refuses the call: a confirmation is shown only for a call that
        can run (the refusal is the model's answer; a deny rule is still applied first, so a denied
        file is never read for the check)."""
        try:
            decision = self.policy.check(spec, tool_input, self.ctx, facts=facts)
        except Exception as e:   # a policy bug must not run the call
            log.exception("permission check failed")
            decision = Decision("deny", f"permission check failed: {e}", "error")
        decision = combine(decision, verdict)
        final = decision
        refused = self._refusal(spec, tool_input) if decision.behavior == "ask" else None
        if refused is not None:
            return Decision("deny", refused, TOOL_CHECK, decision.destructive)
        if decision.behavior == "ask":
            final = self._ask(call_id, spec, tool_input, args, decision, summary)
        elif decision.behavior == "deny":
            final = Decision("deny", f"Permission denied: {decision.reason} ({decision.decided_by})",
                             decision.decided_by, decision.destructive)
        self.emit(PermissionDecision(call_id=call_id, name=spec.name, decision=decision.behavior,
                                     final="allow" if final.behavior == "allow" else "deny",
                                     decided_by=final.decided_by, reason=decision.reason,
                                     outside_sandbox=bool(decision.outside_sandbox),
                                     outside_reason=decision.outside_sandbox or ""))
        return final

    def _ask(self, call_id: str, spec: ToolSpec[Any], tool_input: BaseModel, args: dict[str, Any],
             decision: Decision, summary: str) -> Decision:
        request = ApprovalRequest(
            call_id=call_id, tool=spec.name, arguments=args, summary=summary,
            reason=decision.reason, destructive=decision.destructive,
            preview=self._preview(spec, tool_input), suggested_rule=decision.suggested_rule,
            outside_sandbox=bool(decision.outside_sandbox), outside_reason=decision.outside_sandbox or "",
            wider_mode=decision.wider_mode or "")
        self.emit(ApprovalRequested(call_id=call_id, name=spec.name, reason=decision.reason,
                                    destructive=decision.destructive, outside_sandbox=request.outside_sandbox,
                                    outside_reason=request.outside_reason))
        try:
            answer = self.approver(request)
        except (KeyboardInterrupt, EOFError):
            answer = ApprovalAnswer(approved=False, message="the user interrupted the prompt")
        except Exception as e:
            log.exception("approver failed")
            answer = ApprovalAnswer(approved=False, message=f"approval failed: {e}")
        if not answer.approved:
            why = f": {answer.message}" if answer.message else ""
            outside = f" (it would run outside the sandbox: {decision.outside_sandbox})" if decision.outside_sandbox else ""
            return Decision("deny", f"Permission denied: the user did not approve this call{outside}{why}",
                            "user", decision.destructive)
        decided_by = "user"
        if answer.remember != "no" and decision.suggested_rule:
            try:
                self.policy.remember(decision.suggested_rule, answer.remember)
                decided_by = f"user (always: {decision.suggested_rule})"
            except Exception as e:
                log.warning("could not remember rule: %s", e)
        return Decision("allow", "approved by the user", decided_by, decision.destructive,
                        outside_sandbox=decision.outside_sandbox, stays_sandboxed=decision.stays_sandboxed)

    def _refusal(self, spec: ToolSpec[Any], tool_input: BaseModel) -> str | None:
        """The error the handler would answer with before doing anything (``spec.check``), or None."""
        if spec.check is None:
            return None
        try:
            spec.check(tool_input, self.ctx)
        except ToolError as e:
            return f"Error: {e}"
        except Exception:
            log.debug("check failed", exc_info=True)    # the handler reports it, after the approval
        return None

    def _preview(self, spec: ToolSpec[Any], tool_input: BaseModel) -> str:
        try:
            if spec.preview is not None:
                return self.mask(str(spec.preview(tool_input, self.ctx) or ""))
        except Exception:
            log.debug("preview failed", exc_info=True)
        return ""
