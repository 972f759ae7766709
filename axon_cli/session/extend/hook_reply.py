"""What one hook answered, read as Claude Code reads it.

- exit 2: a block; stderr is the reason (for the model where the event has one to tell: PreToolUse,
  PostToolUse, Stop, SubagentStop; a UserPromptSubmit block stops the prompt). JSON on stdout is
  ignored then, as in Claude Code.
- exit 0 with a JSON object on stdout: ``decision`` (``block``; ``approve`` and axon's
  allow/deny/ask too), ``reason``, ``hookSpecificOutput.permissionDecision`` (allow | deny | ask, which
  wins over ``decision``) with ``permissionDecisionReason``, ``hookSpecificOutput.updatedInput``,
  ``additionalContext`` (nested or top level), ``continue: false`` with ``stopReason`` (the agent
  stops), ``suppressOutput`` (stdout is not shown or used as context), ``systemMessage`` (shown to
  the user).
- exit 0 with plain stdout: text (context for SessionStart and UserPromptSubmit).
- any other exit: a problem line for the user; the hook counts as silent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from axon_cli.kernel.loaders import json_value
from axon_cli.session.extend.hook_guard import hook_label
from axon_cli.settings.config import HookConfig

__all__ = ["HookReply", "HookResult", "read_reply"]

_DECISIONS = {"allow": "allow", "approve": "allow", "deny": "deny", "block": "deny", "ask": "ask"}


@dataclass
class HookReply:
    """One hook's answer."""

    hook: HookConfig
    outcome: Literal["ok", "block", "error", "timeout", "skipped"]
    exit_code: int | None = None
    decision: str | None = None       # allow | deny | ask
    reason: str = ""
    context: str = ""                 # additionalContext of a JSON reply
    output: str = ""                  # plain (non-JSON) stdout of a hook that exited 0
    problem: str = ""
    duration_ms: int = 0
    stop: bool = False                # continue: false — the agent stops after this event
    stop_reason: str = ""
    updated_input: dict[str, Any] | None = None
    message: str = ""                 # systemMessage: for the user


@dataclass
class HookResult:
    """Every matching hook's answer for one event, in config order."""

    replies: list[HookReply] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        return [r.problem for r in self.replies if r.problem]

    @property
    def messages(self) -> list[str]:
        return [r.message for r in self.replies if r.message]

    def first(self, decision: str) -> HookReply | None:
        return next((r for r in self.replies if r.decision == decision), None)

    def stopped(self) -> HookReply | None:
        """The first reply that said ``continue: false``."""
        return next((r for r in self.replies if r.stop), None)

    def updated_input(self) -> dict[str, Any] | None:
        """The last ``updatedInput`` of a reply that did not deny (each one replaces the input)."""
        found = [r.updated_input for r in self.replies if r.updated_input is not None and r.decision != "deny"]
        return found[-1] if found else None

    def context(self, plain_output: bool) -> str:
        """additionalContext of every reply (and the plain stdout too, with ``plain_output``)."""
        parts = [r.context for r in self.replies] + ([r.output for r in self.replies] if plain_output else [])
        return "\n".join(p for p in parts if p).strip()


def read_reply(event: str, hook: HookConfig, code: int, out: str, err: str) -> HookReply:
    """A finished hook's exit code and output as its answer."""
    name = hook_label(event, hook)
    if code == 2:
        return HookReply(hook, "block", 2, "deny", err or f"blocked by {name}")
    if code != 0:
        detail = (err or out).split("\n")[0][:200]
        return HookReply(hook, "error", code, problem=f"{name} failed (exit {code})" + (f": {detail}" if detail else ""))
    if not out.startswith("{"):
        return HookReply(hook, "ok", 0, output=out)
    try:
        reply = json_value(out)
        if not isinstance(reply, dict):
            raise ValueError("not an object")
    except ValueError:
        return HookReply(hook, "error", 0, problem=f"{name} printed output that is not valid JSON")
    return _json_reply(hook, reply)


def _json_reply(hook: HookConfig, reply: dict[str, Any]) -> HookReply:
    nested = reply.get("hookSpecificOutput")
    specific: dict[str, Any] = nested if isinstance(nested, dict) else {}
    raw = specific.get("permissionDecision") or reply.get("decision")
    decision = _DECISIONS.get(str(raw).lower()) if raw else None
    reason = specific.get("permissionDecisionReason") or reply.get("reason") or ""
    context = specific.get("additionalContext") or reply.get("additionalContext") or ""
    updated = specific.get("updatedInput")
    stop = reply.get("continue") is False
    return HookReply(hook, "block" if decision == "deny" else "ok", 0, decision, str(reason), str(context),
                     stop=stop, stop_reason=str(reply.get("stopReason") or "") if stop else "",
                     updated_input=updated if isinstance(updated, dict) else None,
                     message=str(reply.get("systemMessage") or ""))
