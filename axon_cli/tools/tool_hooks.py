"""The seam through which the user's PreToolUse/PostToolUse hooks reach dispatch.

Dispatch only sees this Protocol; ``axon_cli/session/extend/hook_seams.py`` implements it by running the
hooks of config.toml. How a hook's verdict combines with the permission policy (``combine``):

- a hook ``deny`` (or exit 2) beats everything, allow rules included;
- a deny from the policy (a deny rule, read-only mode) stays a deny whatever a hook says;
- a hook ``ask`` makes the approver ask even where the policy would allow;
- a hook's ``updatedInput`` replaces the call's input before any of this: the call is validated,
  its facts computed and the policy asked again for the input that will run (``Dispatcher.prepare``);
- a hook ``allow`` answers a question the *mode* would ask, but not an ask rule nor the
  sensitive-path floor (the user wrote those down, or they protect secrets), nor whether a call may
  leave the ``auto`` sandbox (only the user's answer, ``--yes``, an allow rule or ``yolo`` do):
  those still ask.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

from axon_cli.policy.base import Decision

__all__ = ["HookVerdict", "ToolHooks", "combine", "HOOK_BLOCKED"]

HOOK_BLOCKED = "Blocked by a PreToolUse hook"


@dataclass(frozen=True)
class HookVerdict:
    decision: Literal["allow", "deny", "ask", "none"]     # "none": no decision, only ``updated_input``
    reason: str = ""
    source: str = "PreToolUse hook"     # which hook decided (command and config file)
    updated_input: dict[str, Any] | None = None   # ``updatedInput`` in axon's names: the call runs with it


class ToolHooks(Protocol):
    def before_tool(self, call_id: str, tool: str, args: dict[str, Any]) -> HookVerdict | None:
        """Run the PreToolUse hooks for one validated call; None when none of them decided."""
        ...

    def guards_tools(self) -> bool:
        """Whether any PreToolUse hook may have a say on a call (then nothing reads on the model's
        behalf without a call the hooks see)."""
        ...

    def after_tool(self, call_id: str, tool: str, args: dict[str, Any], result: str) -> str | None:
        """Run the PostToolUse hooks with the (masked, truncated) result of a call that succeeded;
        text for the model, or None."""
        ...


def _hook_may_allow(decision: Decision) -> bool:
    asked_by_mode = decision.decided_by.startswith("mode ")
    return asked_by_mode and "never allowed by a mode alone" not in decision.reason and not decision.outside_sandbox


def combine(decision: Decision, verdict: HookVerdict | None) -> Decision:
    """The policy's decision after the hooks had their say (see the module docstring)."""
    if verdict is None or verdict.decision == "none" or decision.behavior == "deny":
        return decision
    if verdict.decision == "deny":
        why = verdict.reason or "no reason given"
        return Decision("deny", f"{HOOK_BLOCKED}: {why}", verdict.source, decision.destructive)
    if verdict.decision == "ask" and decision.behavior == "allow":
        why = f"a PreToolUse hook asks: {verdict.reason}" if verdict.reason else "a PreToolUse hook asks"
        return replace(decision, behavior="ask", reason=why, decided_by=verdict.source, needs_snapshot=False)
    if verdict.decision == "allow" and decision.behavior == "ask" and _hook_may_allow(decision):
        return replace(decision, behavior="allow", reason=verdict.reason or "allowed by a PreToolUse hook",
                       decided_by=verdict.source, suggested_rule=None)
    return decision
