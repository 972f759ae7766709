"""The interface dispatch uses to ask whether a tool call may run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["Decision", "PermissionPolicy", "AllowAll", "Behavior", "ToolFacts", "KnownFacts"]

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
    wider_mode: str | None = None     # an ask: the narrowest wider mode that would run it unasked


class ToolFacts(Protocol):
    """What the policy reads of a tool (``tools.spec.ToolSpec`` has it): its name, what it does, where
    it comes from, and the input-dependent facts."""

    @property
    def name(self) -> str: ...

    @property
    def category(self) -> str: ...

    @property
    def source(self) -> str: ...

    @property
    def paths(self) -> Callable[[Any], list[str]]: ...

    @property
    def is_read_only(self) -> Callable[[Any], bool]: ...

    @property
    def is_destructive(self) -> Callable[[Any], bool]: ...


class KnownFacts(Protocol):
    """A call's facts computed once by the tool layer (``tools.calls.CallFacts``): the policy reads
    them rather than asking the spec again; ``shell`` is a shell command's analysis."""

    @property
    def read_only(self) -> bool: ...

    @property
    def destructive(self) -> bool: ...

    @property
    def paths(self) -> tuple[str, ...] | None: ...

    @property
    def shell(self) -> Any: ...


class PermissionPolicy(Protocol):
    def check(self, spec: ToolFacts, tool_input: BaseModel, ctx: object = None,
              facts: KnownFacts | None = None) -> Decision: ...

    def remember(self, rule: str, scope: Literal["session", "project"]) -> str:
        """Allow ``rule`` from now on; for "project" also write it to the permissions file.
        Returns a line saying what was done."""
        ...

    @property
    def mode(self) -> str: ...

    def set_mode(self, mode: str) -> None: ...


class AllowAll:
    """Every call runs (the pass-through policy)."""

    def check(self, spec: ToolFacts, tool_input: BaseModel, ctx: object = None,
              facts: KnownFacts | None = None) -> Decision:
        return Decision("allow", "no policy", "pass-through")

    def remember(self, rule: str, scope: Literal["session", "project"]) -> str:
        return ""

    @property
    def mode(self) -> str:
        return "yolo"

    def set_mode(self, mode: str) -> None:
        return None
