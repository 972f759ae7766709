"""The pure decision for a shell command, from its analysis, the rules and the mode.

A deny (ask) rule matching any simple command denies (asks for) the whole; file-tool deny/ask
rules apply to the paths a command names (``read_file(.env)`` denied means ``cat .env`` is too).
Rules allow a compound command only if every simple command is allowed by a rule or is itself
read-only and stays inside the project. A bash allow rule covers the command, not a file it
redirects output into: that write still asks (except in ``accept-edits``, inside the project).

Under an ``auto`` sandbox, a command that would run outside it (``sandbox_exit``) runs unasked only
when every simple command that makes it leave is allowed by a rule, or in ``yolo`` mode: otherwise
it asks, also where "read-only" or "sandboxed, undoable" would have allowed it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from axon_cli.policy.base import Decision
from axon_cli.policy.containment import SANDBOXED_UNDOABLE, not_contained, reaches_out
from axon_cli.policy.effects import Effects, unit_effects
from axon_cli.policy.modes import changes_nothing, effective_mode, refuse_change
from axon_cli.policy.paths import PathFacts, sensitive_reason
from axon_cli.policy.rules import FILE_TOOLS, Rule, bash_match
from axon_cli.policy.sandbox_exit import ASKED, runs_project_code, sandbox_exit
from axon_cli.shell.analyze import CommandAnalysis, Unit, analyze
from axon_cli.shell.facts import command_name
from axon_cli.shell.readers import version_query

if TYPE_CHECKING:
    from axon_cli.policy.decision_context import DecisionContext

__all__ = ["decide_shell", "short"]

READ_TOOLS = ("read_file", "list_files", "search_files")
DEVICES = frozenset({"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/stdout",
                     "/dev/stderr", "/dev/tty"})        # reading these touches nothing outside the project
NO_EDIT_ONLY = frozenset({"awk", "gawk", "python", "python3", "node", "bash", "sh"})   # run code as well


def short(command: str, limit: int = 80) -> str:
    one = " ".join(command.split())
    return one if len(one) <= limit else one[:limit - 1] + "…"


def _forms(argv: list[str]) -> list[list[str]]:
    base = argv[0].rsplit("/", 1)[-1]
    return [argv] if base == argv[0] else [argv, [base, *argv[1:]]]


def _unit_rule(rules: list[Rule], unit: Unit) -> Rule | None:
    for rule in rules:
        if rule.pattern is None or any(bash_match(rule.pattern, f) for f in _forms(unit.argv)):
            return rule
    return None


class _Facts:
    def __init__(self, analysis: CommandAnalysis, ctx: DecisionContext) -> None:
        self.reads = [[f for p in u.paths for f in ctx.facts(p)] for u in analysis.units]
        self.writes = [[f for p in u.write_paths for f in ctx.facts(p, True)] for u in analysis.units]

    def all(self) -> list[PathFacts]:
        return [f for group in self.reads + self.writes for f in group]


def _file_rule_hit(action: str, analysis: CommandAnalysis, facts: _Facts, ctx: DecisionContext) -> tuple[Rule, str] | None:
    for tool in sorted(FILE_TOOLS):
        for rule in ctx.rules.of(action, tool):   # type: ignore[arg-type]
            for unit, reads, writes in zip(analysis.units, facts.reads, facts.writes, strict=True):
                named = reads + writes if tool in READ_TOOLS or not unit.read_only else writes
                hit = next((f for f in named if ctx.covers(rule, [f])), None)
                if hit is not None and rule.pattern is not None:
                    return rule, hit.raw
    return None


def decide_shell(command: str, ctx: DecisionContext, tool: str = "bash", asked: bool = False,
                 analysis: CommandAnalysis | None = None) -> Decision:
    """Decide one shell command; ``asked``: the model asked to run it outside the sandbox; ``analysis``:
    the command's, when the caller has it (else it is analysed here)."""
    a = analysis if analysis is not None and analysis.command == command else analyze(command)
    leavable = ctx.containment is not None and ctx.containment.may_leave
    if not a.parsed:
        d = _unparsed(command, a, ctx, tool, f'{tool} "{short(command)}"')
        return replace(d, stays_sandboxed="could not be analysed") if leavable else d
    facts = _Facts(a, ctx)
    d = _decide_parsed(command, a, facts, ctx, tool)
    if not leavable or d.behavior == "deny":
        return d
    return _settle_exit(d, a, facts, ctx, tool, asked)


def _settle_exit(d: Decision, a: CommandAnalysis, facts: _Facts, ctx: DecisionContext, tool: str,
                 asked: bool) -> Decision:
    """The decision once leaving the ``auto`` sandbox is considered: an ask says it would run
    outside; an allow stands only where a rule names every simple command that leaves (or yolo)."""
    exit_ = sandbox_exit(a, facts.all(), ctx, asked)
    if exit_.pinned:
        return replace(d, stays_sandboxed=exit_.pinned)
    if exit_.why is None:
        return d
    if d.behavior == "ask":
        return replace(d, outside_sandbox=exit_.why)
    if ctx.mode == "yolo":
        return replace(d, outside_sandbox=exit_.why)
    allow = ctx.rules.of("allow", tool)
    named = [_unit_rule(allow, u) for u in exit_.units]
    code = next((why for u in exit_.units for why in [runs_project_code(u, ctx)] if why), None)
    if named and all(named) and not d.needs_snapshot and exit_.why != ASKED and code is None:
        return replace(d, outside_sandbox=exit_.why)
    why = f"runs outside the sandbox: {exit_.why}"
    if named and all(named):      # an allow rule approves running inside the sandbox, not leaving it
        why += f"; {code}, so an allow rule does not approve leaving" if code else \
            "; an allow rule does not approve leaving the sandbox when the model asks to"
    return Decision("ask", why, f"mode {ctx.mode}", d.destructive, None if code or exit_.why == ASKED
                    else _suggest(exit_.units, tool), outside_sandbox=exit_.why)


def _decide_parsed(command: str, a: CommandAnalysis, facts: _Facts, ctx: DecisionContext, tool: str) -> Decision:
    subject = f'{tool} "{short(command)}"'
    destructive = a.destructive
    for action in ("deny", "ask"):
        rules = ctx.rules.of(action, tool)   # type: ignore[arg-type]
        hit = next(((r, u) for u in a.units if u.argv for r in [_unit_rule(rules, u)] if r), None)
        file_hit = _file_rule_hit(action, a, facts, ctx)
        if hit is None and file_hit is None:
            continue
        rule = hit[0] if hit else file_hit[0]   # type: ignore[index]
        what = subject if hit else f"{subject} names {file_hit[1]}"   # type: ignore[index]
        if action == "deny":
            return Decision("deny", what, rule.describe(), destructive)
        if changes_nothing(ctx.mode) and not a.read_only:
            break
        return Decision("ask", f"matches an ask rule ({what})", rule.describe(), destructive, _suggest(a.units, tool))
    if changes_nothing(ctx.mode) and not a.read_only:
        return refuse_change(subject, ctx.mode, destructive)
    return _allow_or_ask(a, facts, ctx, tool, destructive)


def _allow_or_ask(a: CommandAnalysis, facts: _Facts, ctx: DecisionContext, tool: str, destructive: bool) -> Decision:
    allow = ctx.rules.of("allow", tool)
    pending: list[Unit] = []
    used: list[Rule] = []
    outside: list[str] = []
    edits_run = effective_mode(ctx.mode, ctx.containment) in ("accept-edits", "auto")
    for unit, reads, writes in zip(a.units, facts.reads, facts.writes, strict=True):
        out = [f.abs for f in writes if f.rel is None]
        rule = _unit_rule(allow, unit) if unit.argv else None
        if rule is None:
            out += [f.abs for f in reads if f.rel is None and f.abs not in DEVICES]
        outside += out
        if rule is not None:
            used.append(rule)
            if out or (writes and not edits_run):   # a rule covers the command, not
                pending.append(unit)                # the file it redirects into
        elif not (unit.read_only and not writes and not out and _program_known(unit, ctx)):
            pending.append(unit)
    sensitive = [f.sensitive for f in facts.all() if f.sensitive]
    suggested = _suggest(pending, tool)
    if sensitive and not (used and all(_names_sensitive(r) for r in used)):
        return Decision("ask", f"names a sensitive path ({sensitive[0]}): never allowed by a mode alone",
                        f"mode {ctx.mode}", destructive, suggested)
    if not pending:
        if used:
            return Decision("allow", "allowed by rules", used[0].describe(), destructive)
        return Decision("allow", "read-only command", f"mode {ctx.mode}", destructive)
    if ctx.mode == "yolo":
        return Decision("allow", "yolo", "mode yolo", destructive)
    if outside:
        return Decision("ask", f"outside the project ({outside[0]})", f"mode {ctx.mode}", destructive, suggested)
    return _unless_write_protected(_by_mode(a, pending, ctx, destructive, suggested), pending, ctx,
                                  suggested)


def _by_mode(a: CommandAnalysis, pending: list[Unit], ctx: DecisionContext, destructive: bool,
             suggested: str | None) -> Decision:
    """The mode's answer for the simple commands no rule and no read-only-ness allowed: the ladder
    of ``modes`` over what they do to existing files (``effects``) and whether the sandbox and a
    snapshot contain them."""
    mode = effective_mode(ctx.mode, ctx.containment)
    effects = Effects()
    for unit in pending:
        effects.add(unit_effects(unit, ctx.exists, ctx.is_dir))
    by = f"mode {ctx.mode}"
    why = "not read-only"
    if effects.destroys:
        why = "destructive: " + ", ".join(effects.destroys)
    elif effects.edits:
        why = "edits " + ", ".join(effects.edits[:3])
    blocker = ""
    if ctx.containment is not None and ctx.containment.applies:
        found = not_contained(pending, ctx, ctx.containment, a)
        if found is None:
            if mode == "auto" or not (effects.destroys or (effects.edits and mode == "default")):
                return Decision("allow", SANDBOXED_UNDOABLE, f"{by}, sandbox and snapshot", destructive,
                                needs_snapshot=True)
            return Decision("ask", why, by, destructive, suggested, wider_mode="auto" if effects.destroys else
                            "accept-edits")
        blocker = f"; not undoable in the sandbox: {found}"
    if mode in ("accept-edits", "auto") and _edits_only(pending, ctx):
        return Decision("allow", "edits files inside the project", by, destructive)
    return Decision("ask", why + blocker, by, destructive, suggested)


def _unless_write_protected(d: Decision, pending: list[Unit], ctx: DecisionContext,
                            suggested: str | None) -> Decision:
    """The mode's allow becomes an ask when these commands delete, overwrite or edit a file the user
    made read-only (below ``yolo``, even where the sandbox and a snapshot would contain it)."""
    if d.behavior != "allow":
        return d
    found = next((w for u in pending for w in (*u.deletes, *u.overwrites, *u.edits) if ctx.write_protected(w)), None)
    if found is None:
        return d
    return Decision("ask", f"changes {found}, a read-only file (no write permission)", f"mode {ctx.mode}",
                    d.destructive, suggested)


def _edits_only(pending: list[Unit], ctx: DecisionContext) -> bool:
    """Every one of ``pending`` edits named files in place and does nothing else the analysis sees."""
    for unit in pending:
        effects = unit_effects(unit, ctx.exists, ctx.is_dir)
        if unit.opaque or effects.destroys or not effects.edits:
            return False
        if unit.argv and (reaches_out(unit.argv) or command_name(unit.argv) in NO_EDIT_ONLY):
            return False
    return True


def _program_known(unit: Unit, ctx: DecisionContext) -> bool:
    """``PROGRAM --version``/``--help`` is read-only only for a program found on PATH outside the project."""
    if not version_query(unit.argv):
        return True
    found = ctx.which(unit.argv[0]) if ctx.which is not None else None
    return found is not None and not ctx.inside(found) and not ctx.inside(_real(found))


def _real(path: str) -> str:
    import os.path

    return os.path.realpath(path)


def _names_sensitive(rule: Rule) -> bool:
    return rule.pattern is not None and any(sensitive_reason(w) for w in rule.pattern.split())


def _suggest(units: list[Unit], tool: str) -> str | None:
    distinct = {tuple(u.argv) for u in units}
    if len(distinct) != 1 or not next(iter(distinct)):
        return None
    text = " ".join(next(iter(distinct)))
    if "(" in text or ")" in text or "\n" in text or "*" in text:
        return None
    return f"{tool}({text})"


def _unparsed(command: str, a: CommandAnalysis, ctx: DecisionContext, tool: str, subject: str) -> Decision:
    for action in ("deny", "ask", "allow"):
        for rule in ctx.rules.of(action, tool):   # type: ignore[arg-type]
            if rule.pattern is not None and (action == "allow" or not bash_match(rule.pattern, command.split())):
                continue
            if action == "deny":
                return Decision("deny", subject, rule.describe(), True)
            if not changes_nothing(ctx.mode):
                return Decision("ask" if action == "ask" else "allow", f"unparseable command ({a.error})", rule.describe(), True)
    if changes_nothing(ctx.mode):
        return refuse_change(subject, ctx.mode, True, f"could not be parsed ({a.error})")
    if ctx.mode == "yolo":
        return Decision("allow", "yolo", "mode yolo", True)
    return Decision("ask", f"could not parse the command ({a.error})", f"mode {ctx.mode}", True)
