"""What every permission decision needs besides the call: mode, rules, the project and home."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from axon_cli.permissions.paths import PathFacts, Resolver, lexical_resolver, path_facts
from axon_cli.permissions.rules import Rule, RuleSet, path_match

if TYPE_CHECKING:
    from axon_cli.permissions.containment import Containment

__all__ = ["DecisionContext", "Which"]

Which = Callable[[str], "str | None"]


class DecisionContext:
    """What every decision needs besides the call: mode, rules, where the project and home are; and
    facts the runtime passes in: ``containment`` (sandbox and snapshot) and ``which`` (where a
    program is found on PATH; None: unknown)."""

    def __init__(self, mode: str, rules: RuleSet, project_root: Path, home: Path,
                 resolve: Resolver | None = None, containment: Containment | None = None,
                 which: Which | None = None) -> None:
        self.mode, self.rules, self.home = mode, rules, str(home)
        self.containment, self.which = containment, which
        self.resolve = resolve or lexical_resolver(project_root, home)
        roots = {str(project_root)}
        if resolve is not None:
            roots |= set(resolve(str(project_root)))
        self.roots = tuple(sorted(roots, key=len, reverse=True))

    def facts(self, raw: str, write: bool = False) -> list[PathFacts]:
        return path_facts(raw, self.resolve, self.roots, write)

    def inside(self, path: str) -> bool:
        return any(path == r or path.startswith(r.rstrip("/") + "/") for r in self.roots)

    def mode_by(self) -> str:
        return f"mode {self.mode}"

    def covers(self, rule: Rule, facts: list[PathFacts]) -> bool:
        if rule.pattern is None:
            return True
        return bool(facts) and any(path_match(rule.pattern, f.rel, f.abs, self.home) for f in facts)
