"""Unit: how a PreToolUse hook's verdict meets the permission policy's decision (tools/tool_hooks.py)."""

from __future__ import annotations

import pytest

from axon_cli.policy.base import Decision
from axon_cli.tools.tool_hooks import HookVerdict, combine

ALLOW_RULE = Decision("allow", "allowed by a rule", 'allow rule "bash(rm *)" in .axon/permissions.toml')
DENY_RULE = Decision("deny", "bash", 'deny rule "bash(rm *)" in .axon/permissions.toml')
READ_ONLY = Decision("deny", "bash is not read-only", "mode read-only")
MODE_ASK = Decision("ask", "not read-only", "mode default", suggested_rule="bash(rm x)")
ASK_RULE = Decision("ask", "matches an ask rule", 'ask rule "bash(git push *)" in .axon/permissions.toml')
SENSITIVE = Decision("ask", "sensitive path (.env): never allowed by a mode alone", "mode yolo")


@pytest.mark.parametrize("decision, verdict, behavior", [
    (ALLOW_RULE, "deny", "deny"),          # a hook's deny beats an allow rule
    (MODE_ASK, "deny", "deny"),
    (DENY_RULE, "allow", "deny"),          # a hook's allow never beats a deny rule…
    (READ_ONLY, "allow", "deny"),          # …nor read-only mode
    (ALLOW_RULE, "ask", "ask"),            # a hook's ask makes the approver ask
    (MODE_ASK, "allow", "allow"),          # a hook's allow answers what the mode would ask…
    (ASK_RULE, "allow", "ask"),            # …but not an ask rule
    (SENSITIVE, "allow", "ask"),           # …nor the sensitive-path floor
    (ALLOW_RULE, None, "allow"),
])
def test_combine(decision, verdict, behavior):
    hook = HookVerdict(verdict, "the reason", 'PreToolUse hook "guard"') if verdict else None
    combined = combine(decision, hook)
    assert combined.behavior == behavior
    if verdict == "deny" and behavior == "deny":
        assert combined.reason == "Blocked by a PreToolUse hook: the reason"
        assert combined.decided_by == 'PreToolUse hook "guard"'
    if verdict == "allow" and behavior == "allow":
        assert combined.suggested_rule is None and combined.decided_by == 'PreToolUse hook "guard"'


def test_a_hook_allow_never_approves_leaving_the_sandbox():
    leaving = Decision("ask", "runs outside the sandbox: git commit writes .git", "mode default",
                       outside_sandbox="git commit writes .git")
    combined = combine(leaving, HookVerdict("allow", "fine", 'PreToolUse hook "guard"'))
    assert combined == leaving                                     # still asks: only the user, --yes, a rule, yolo
    allowed = Decision("allow", "yolo", "mode yolo", outside_sandbox="git push needs the network")
    asked = combine(allowed, HookVerdict("ask", "check", 'PreToolUse hook "guard"'))
    assert (asked.behavior, asked.outside_sandbox) == ("ask", "git push needs the network")   # kept for the prompt
