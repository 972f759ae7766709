"""The interface dispatch uses to ask whether a tool call may run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from pydantic import BaseModel

    from axon_cli.tools.spec import ToolContext, ToolSpec

__all__ = ["Decision", "PermissionPolicy", "AllowAll", "Behavior"]

Behavior = Literal["allow", "ask", "deny"]


@dataclass(frozen=True)
class Decision:
    behavior: Behavior
    reason: str = ""
    decided_by: str = "mode"          # e.g. 'deny rule "bash(curl *)" in .axon/permissions.toml'
    destructive: bool = False
    suggested_rule: str | None = None  # the narrowest allow rule covering this call
    needs_snapshot: bool = False      # allowed only because a snapshot can undo it ("sandboxed, undoable")
    outside_sandbox: str | None = None  # why it runs outside the ``auto`` sandbox once approved (None: inside)
    stays_sandboxed: str | None = None  # why it never leaves the sandbox (a sensitive path, read-only mode)


class PermissionPolicy(Protocol):
    def check(self, spec: ToolSpec[Any], tool_input: BaseModel, ctx: ToolContext) -> Decision: ...

    def remember(self, rule: str, scope: Literal["session", "project"]) -> str:
        """Allow ``rule`` from now on; for "project" also write it to the permissions file.
        Returns a line saying what was done."""
        ...

    @property
    def mode(self) -> str: ...

    def set_mode(self, mode: str) -> None: ...


class AllowAll:
    """Every call runs (the pass-through policy)."""

    def check(self, spec: ToolSpec[Any], tool_input: BaseModel, ctx: ToolContext) -> Decision:
        return Decision("allow", "no policy", "pass-through")

    def remember(self, rule: str, scope: Literal["session", "project"]) -> str:
        return ""

    @property
    def mode(self) -> str:
        return "yolo"

    def set_mode(self, mode: str) -> None:
        return None
