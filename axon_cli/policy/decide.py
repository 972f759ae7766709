"""The pure permission decision: (tool, input, facts, mode, rules, root) → allow | ask | deny.

Precedence: deny rule > ask rule > allow rule > mode. On top of that, two safety floors:
``read-only`` and ``plan`` deny every call that is not read-only (rules cannot widen them), and a
sensitive path is never allowed by a mode alone (only by an allow rule that itself names a
sensitive path). Paths outside the project ask (``yolo`` excepted), and so does changing a file the
user made read-only (no write bit for anyone), in every mode but ``yolo``. No I/O happens here: paths
are resolved by the ``resolve`` callable passed in (default: lexical only).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from axon_cli.policy.base import Decision
from axon_cli.policy.decision_context import Containment, DecisionContext, FileProbe, Which
from axon_cli.policy.modes import changes_nothing, refuse_change
from axon_cli.policy.paths import PathFacts, Resolver, sensitive_reason
from axon_cli.policy.rules import Rule, RuleSet

__all__ = ["decide"]


def decide(tool_name: str, category: str, tool_input: dict[str, Any], read_only: bool, destructive: bool,
           mode: str, rules: RuleSet, project_root: Path, home: Path, *, paths: list[str] | None = None,
           source: str = "builtin", resolve: Resolver | None = None, containment: Containment | None = None,
           which: Which | None = None, probe: FileProbe | None = None, analysis: Any = None) -> Decision:
    """Decide one call. ``paths`` are the file paths it touches (file tools). ``containment`` (a
    sandbox confining writes to the workspace, a snapshot that can restore it, whether the sandbox
    may be left) and ``which`` (where a program is on PATH) are facts for shell commands; a shell
    input's ``outside_sandbox`` says the model asked to run it outside the sandbox. ``probe`` says
    which files exist (a command overwriting one is destructive; without it, every one is taken to).
    ``analysis``: a shell command's analysis when the caller has it already (computed once a call)."""
    ctx = DecisionContext(mode, rules, project_root, home, resolve, containment, which, probe)
    if category == "shell":
        # the shell analysis is imported on the first shell call, not at start-up
        from axon_cli.policy.shell_decide import decide_shell

        return decide_shell(str(tool_input.get("command", "")), ctx, tool_name,
                            asked=bool(tool_input.get("outside_sandbox")), analysis=analysis)
    if tool_name == "web_fetch" and source == "builtin":
        from axon_cli.policy.web import decide_web

        return decide_web(tool_input, destructive, ctx)
    if category in ("read", "edit"):
        return _decide_files(tool_name, category == "edit" or not read_only, paths or [], destructive, ctx)
    return _decide_other(tool_name, tool_input, read_only, destructive, source, ctx)


def _decide_files(tool: str, write: bool, raw_paths: list[str], destructive: bool, ctx: DecisionContext) -> Decision:
    per_path = [ctx.facts(p, write) for p in raw_paths]
    shown = ", ".join(raw_paths) or "(no path)"
    subject = f"{tool} {shown}"
    for action in ("deny", "ask"):
        for rule in ctx.rules.of(action, tool):   # type: ignore[arg-type]
            if rule.pattern is None or any(ctx.covers(rule, facts) for facts in per_path):
                if action == "deny":
                    return Decision("deny", subject, rule.describe(), destructive)
                if changes_nothing(ctx.mode) and write:
                    return refuse_change(subject, ctx.mode, destructive)
                return Decision("ask", f"matches an ask rule ({subject})", rule.describe(), destructive,
                                _suggest_file(tool, per_path, ctx))
    if changes_nothing(ctx.mode) and write:
        return refuse_change(subject, ctx.mode, destructive)
    allow = [r for r in ctx.rules.of("allow", tool)]
    covering = [next((r for r in allow if ctx.covers(r, facts)), None) for facts in per_path]
    sensitive = [f.sensitive for facts in per_path for f in facts if f.sensitive]
    suggested = _suggest_file(tool, per_path, ctx)
    if per_path and all(covering) or (not per_path and allow):
        used = [r for r in covering if r] or allow[:1]
        if not sensitive or all(sensitive_reason(r.pattern or "") for r in used):
            return Decision("allow", "allowed by a rule", used[0].describe(), destructive)
    if sensitive:
        return Decision("ask", f"sensitive path ({sensitive[0]}): never allowed by a mode alone",
                        ctx.mode_by(), destructive, suggested)
    outside = [f.abs for facts in per_path for f in facts if f.rel is None]
    if outside and ctx.mode != "yolo":
        return Decision("ask", f"outside the project ({outside[0]})", ctx.mode_by(), destructive, suggested)
    protected = [p for p in raw_paths if write and ctx.write_protected(p)]
    if protected and ctx.mode != "yolo":
        return Decision("ask", f"{protected[0]} is read-only (no write permission): asked in every mode but yolo",
                        ctx.mode_by(), destructive, suggested)
    if not write or ctx.mode in ("accept-edits", "auto", "yolo"):
        return Decision("allow", "read-only" if not write else "edit inside the project", ctx.mode_by(),
                        destructive)
    return Decision("ask", "changes a file", ctx.mode_by(), destructive, suggested)


def _suggest_file(tool: str, per_path: list[list[PathFacts]], ctx: DecisionContext) -> str | None:
    if len(per_path) != 1 or not per_path[0]:
        return None
    first = per_path[0][0]
    if first.rel:
        return f"{tool}({first.rel})"
    home = ctx.home.rstrip("/") + "/"
    return f"{tool}(~/{first.abs[len(home):]})" if first.abs.startswith(home) else f"{tool}({first.abs})"


def _input_strings(tool_input: dict[str, Any]) -> list[str]:
    return [str(v) for v in tool_input.values() if isinstance(v, (str, int, float))]


def _decide_other(tool: str, tool_input: dict[str, Any], read_only: bool, destructive: bool, source: str,
                  ctx: DecisionContext) -> Decision:
    # MCP's rule names: loaded at the first decision that reads rules
    from axon_cli.policy.rules import bash_regex
    from axon_cli.policy.tool_names import rule_names

    def hits(rule: Rule) -> bool:
        return rule.pattern is None or any(bash_regex(rule.pattern).match(s) for s in _input_strings(tool_input))

    mcp = source.startswith("mcp:")
    names = rule_names(tool, source)
    for action in ("deny", "ask", "allow"):
        rule = next((r for r in ctx.rules.covering(action, names) if hits(r)), None)   # type: ignore[arg-type]
        if rule is None:
            continue
        if action == "deny":
            return Decision("deny", tool, rule.describe(), destructive)
        if changes_nothing(ctx.mode) and not read_only:
            return refuse_change(tool, ctx.mode, destructive)
        if action == "ask":
            return Decision("ask", "matches an ask rule", rule.describe(), destructive, tool)
        return Decision("allow", "allowed by a rule", rule.describe(), destructive)
    if changes_nothing(ctx.mode) and (mcp or not read_only):
        return refuse_change(tool, ctx.mode, destructive)
    if ctx.mode == "yolo" or (read_only and not mcp):
        return Decision("allow", "read-only" if read_only else "yolo", ctx.mode_by(), destructive)
    why = f"an MCP tool ({source[4:]})" if mcp else "not read-only"
    return Decision("ask", why, ctx.mode_by(), destructive, tool)

