"""What every permission decision needs besides the call: mode, rules, the project and home."""

from __future__ import annotations

from pathlib import Path

from axon_cli.permissions.paths import PathFacts, Resolver, lexical_resolver, path_facts
from axon_cli.permissions.rules import Rule, RuleSet, path_match

__all__ = ["DecisionContext"]


class DecisionContext:
    """What every decision needs besides the call: mode, rules, where the project and home are."""

    def __init__(self, mode: str, rules: RuleSet, project_root: Path, home: Path,
                 resolve: Resolver | None = None) -> None:
        self.mode, self.rules, self.home = mode, rules, str(home)
        self.resolve = resolve or lexical_resolver(project_root, home)
        roots = {str(project_root)}
        if resolve is not None:
            roots |= set(resolve(str(project_root)))
        self.roots = tuple(sorted(roots, key=len, reverse=True))

    def facts(self, raw: str, write: bool = False) -> list[PathFacts]:
        return path_facts(raw, self.resolve, self.roots, write)

    def mode_by(self) -> str:
        return f"mode {self.mode}"

    def covers(self, rule: Rule, facts: list[PathFacts]) -> bool:
        if rule.pattern is None:
            return True
        return bool(facts) and any(path_match(rule.pattern, f.rel, f.abs, self.home) for f in facts)
