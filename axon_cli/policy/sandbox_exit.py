"""Which shell commands leave an ``auto`` sandbox once approved, and which never do.

With ``sandbox = "auto"`` (never with a sandbox the user named), an approved bash call runs outside
the sandbox when it needs what the sandbox forbids — the network (``curl``, ``git push``, package
installs, publishing), acting beyond the workspace (``kill``, ``sudo``, ``docker``), writing outside
the project, writing ``.git`` (``git commit``, ``git add``, ``git checkout -b``, … see
``git_effects``) or ``.axon`` — or when the model asked for it (``outside_sandbox: true``). Whether it
was approved for that is the decision's business (``shell_decide``); this module only says why it
would leave, or why it never may: a command naming a sensitive path (``~/.ssh``, ``.env``, a write
into ``.git/``, …) stays inside, where those read as empty and ``.git`` is read-only — named as a
path the analysis sees, or anywhere inside a word (``python -c "open('/home/u/.ssh/id_rsa')"``).
Pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from axon_cli.policy.containment import NETWORK, changed_words, reaches_out
from axon_cli.policy.modes import changes_nothing
from axon_cli.policy.paths import sensitive_reason
from axon_cli.shell.facts import command_name, destructive_reason
from axon_cli.shell.git_effects import git_effects
from axon_cli.shell.loopback import loopback_only
from axon_cli.shell.targets import operands

if TYPE_CHECKING:
    from axon_cli.policy.decision_context import DecisionContext
    from axon_cli.policy.paths import PathFacts
    from axon_cli.shell.analyze import CommandAnalysis, Unit

__all__ = ["SandboxExit", "sandbox_exit", "ASKED", "runs_project_code"]

ASKED = "asked for by the model"
_CREATES = ("touch", "mkdir", "mkfifo")
_PROTECTED = (".axon",)
INTERPRETERS = frozenset({"python", "python3", "node", "ruby", "perl", "php", "bash", "sh", "zsh", "dash", "deno",
                          "bun", "lua", "Rscript", "java", "tsx", "ts-node"})
RUNNERS = frozenset({"make", "gmake", "npm", "npx", "yarn", "pnpm", "pytest", "tox", "nox", "just", "task",
                     "cargo", "go", "gradle", "gradlew", "mvn", "rake", "bundle", "poetry", "uv", "pre-commit",
                     "pip", "pip3", "hatch", "pdm", "invoke", "ant", "cmake", "meson", "ninja", "dotnet"})


@dataclass(frozen=True)
class SandboxExit:
    why: str | None = None            # why it would run outside (None: it stays inside)
    pinned: str | None = None         # why it never leaves
    units: list[Unit] = field(default_factory=list)   # the simple commands that make it leave


def _written(unit: Unit) -> list[str]:
    """The paths this simple command writes that the analysis can see (created or changed)."""
    name = command_name(unit.argv)
    if name in _CREATES:
        return operands(name, unit.argv[1:])
    return changed_words(unit)


def _pip(argv: list[str]) -> str | None:
    name, args = command_name(argv), argv[1:]
    if name.startswith("python") and args[:2] == ["-m", "pip"] and args[2:3] and args[2] in ("install", "uninstall"):
        return f"pip {args[2]} needs the network or changes installed packages"
    reason = destructive_reason(argv)
    return reason if reason and "packages" in reason else None


def _unit_needs(unit: Unit, ctx: DecisionContext, writes: list[PathFacts]) -> str | None:
    """Why this one simple command needs more than the sandbox allows."""
    if unit.argv:
        name = command_name(unit.argv)
        if name == "git":
            effects = git_effects(unit.argv[1:])
            if effects.network:
                return f"git {effects.sub} needs the network"
            if effects.writes_config:
                return f"git {effects.sub} writes {effects.writes_config}"
            if effects.writes_repo:
                return f"git {effects.sub} writes .git"
        own_loopback = name in NETWORK and loopback_only(unit.argv)   # the sandbox's, where its servers are
        why = None if own_loopback else reaches_out(unit.argv) or _pip(unit.argv)
        if why:
            return why
    for f in writes:
        if f.rel is None:
            return f"writes outside the project ({f.abs})"
        if f.rel.split("/", 1)[0] in _PROTECTED:
            return f"writes {f.rel}"
    return None


def sandbox_exit(a: CommandAnalysis, named: list[PathFacts], ctx: DecisionContext, asked: bool) -> SandboxExit:
    """Why the analysed command ``a`` would leave the sandbox (``named``: the facts of the paths its
    words and redirections name), or why it never may."""
    if changes_nothing(ctx.mode):
        return SandboxExit(pinned=f"mode {ctx.mode}")
    writes = [[f for w in (_written(u) if u.argv else []) + u.write_paths for f in ctx.facts(w, True)]
              for u in a.units]
    sensitive = next((f.sensitive for f in named + [f for group in writes for f in group] if f.sensitive), None)
    sensitive = sensitive or next((r for u in a.units for w in u.argv[1:] for r in [sensitive_reason(w)] if r), None)
    if sensitive:
        return SandboxExit(pinned=f"names a sensitive path ({sensitive})")
    leaving = [(u, why) for u, w in zip(a.units, writes, strict=True) for why in [_unit_needs(u, ctx, w)] if why]
    if leaving:
        return SandboxExit(leaving[0][1], units=[u for u, _ in leaving])
    if asked:
        return SandboxExit(ASKED, units=[u for u in a.units if u.argv])
    return SandboxExit()


def runs_project_code(unit: Unit, ctx: DecisionContext) -> str | None:
    """Why this simple command runs code the project holds — which the sandboxed model can change —
    or None: a program inside the project, an interpreter given a project file, a build tool or
    test runner (they run the project's Makefile, package.json scripts, conftest.py, build.rs …)."""
    if not unit.argv:
        return None
    name = command_name(unit.argv)
    program = next((f for f in ctx.facts(unit.argv[0]) if f.rel is not None), None) if "/" in unit.argv[0] else None
    if program is not None:
        return f"{program.rel} is a file of the project"
    base = name.rsplit("/", 1)[-1]
    if base in RUNNERS or base.startswith("python3.") or (base == "python3" and unit.argv[1:3] == ["-m", "pip"]):
        return f"{base} runs the project's own build or test files"
    if base in INTERPRETERS:
        for word in unit.argv[1:]:
            if word.startswith("-"):
                continue
            hit = next((f for f in ctx.facts(word) if f.rel is not None and f.rel and ctx.exists(word)), None)
            if hit is not None:
                return f"{base} runs {hit.rel}, a file of the project"
    return None
