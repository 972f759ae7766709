"""What every permission decision needs besides the call: mode, rules, the project and home."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from axon_cli.policy.paths import PathFacts, Resolver, lexical_resolver, path_facts
from axon_cli.policy.rules import Rule, RuleSet, path_match

__all__ = ["DecisionContext", "Which", "Containment", "FileProbe", "DISK"]

Which = Callable[[str], "str | None"]


def _no_write_bit(path: str) -> bool:
    """A regular file with no write bit for anyone (``chmod a-w``, 0444): the user marked it not to
    be changed. Decided by the mode bits, not ``os.access`` (root may write it anyway)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(st.st_mode) and not st.st_mode & 0o222


def _never(_path: str) -> bool:
    return False


@dataclass(frozen=True)
class FileProbe:
    """Whether an absolute path names something (``exists``) and whether it is a directory: a
    target that exists makes ``> f`` or ``cp a f`` destructive; one that does not, a new file.
    ``write_protected``: a file the user made read-only, which asks before it is changed."""

    exists: Callable[[str], bool]
    is_dir: Callable[[str], bool]
    write_protected: Callable[[str], bool] = _never


DISK = FileProbe(os.path.lexists, os.path.isdir, _no_write_bit)


@dataclass(frozen=True)
class Containment:
    """Facts from the runtime. ``confined``: a sandbox confines every write to the workspace and has
    no network. ``uncovered``: of some absolute paths, those the workspace snapshot could not
    restore, with why (a missing path is covered: there is nothing to lose); None when there is no
    working snapshot. ``may_leave``: the sandbox is ``auto`` (not one the user asked for by name), so
    an approved call that needs more than it allows may run outside it (``sandbox_exit``)."""

    confined: bool
    uncovered: Callable[[list[str]], dict[str, str]] | None
    may_leave: bool = False

    @property
    def applies(self) -> bool:
        return self.confined and self.uncovered is not None


class DecisionContext:
    """What every decision needs besides the call: mode, rules, where the project and home are; and
    facts the runtime passes in: ``containment`` (sandbox and snapshot) and ``which`` (where a
    program is found on PATH; None: unknown)."""

    def __init__(self, mode: str, rules: RuleSet, project_root: Path, home: Path,
                 resolve: Resolver | None = None, containment: Containment | None = None,
                 which: Which | None = None, probe: FileProbe | None = None) -> None:
        self.mode, self.rules, self.home = mode, rules, str(home)
        self.containment, self.which, self.probe = containment, which, probe
        self.resolve = resolve or lexical_resolver(project_root, home)
        roots = {str(project_root)}
        if resolve is not None:
            roots |= set(resolve(str(project_root)))
        self.roots = tuple(sorted(roots, key=len, reverse=True))

    def facts(self, raw: str, write: bool = False) -> list[PathFacts]:
        return path_facts(raw, self.resolve, self.roots, write)

    def exists(self, word: str) -> bool:
        """Whether the file a command word names exists (unknown without a probe: taken to exist)."""
        probe = self.probe
        return probe is None or any(probe.exists(f.abs) for f in self.facts(word))

    def is_dir(self, word: str) -> bool:
        probe = self.probe
        return probe is not None and any(probe.is_dir(f.abs) for f in self.facts(word))

    def write_protected(self, word: str) -> bool:
        """Whether a path (a file tool's, a command's word) names a file the user made read-only."""
        probe = self.probe
        return probe is not None and any(probe.write_protected(f.abs) for f in self.facts(word))

    def inside(self, path: str) -> bool:
        return any(path == r or path.startswith(r.rstrip("/") + "/") for r in self.roots)

    def mode_by(self) -> str:
        return f"mode {self.mode}"

    def covers(self, rule: Rule, facts: list[PathFacts]) -> bool:
        if rule.pattern is None:
            return True
        return bool(facts) and any(path_match(rule.pattern, f.rel, f.abs, self.home) for f in facts)
