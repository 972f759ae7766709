"""Text for ``axon permissions`` (effective rules and mode) and ``axon permissions check CALL``."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from axon_cli.app.reports.trust import waiting_lines
from axon_cli.kernel.errors import UsageError
from axon_cli.policy.base import Decision
from axon_cli.policy.decide import decide
from axon_cli.policy.decision_context import DISK, Containment
from axon_cli.policy.modes import MODES, auto_fallback_note
from axon_cli.policy.paths import SENSITIVE_DESCRIPTION, fs_resolver
from axon_cli.policy.project_policy import load_policy
from axon_cli.settings.config import LoadedSettings
from axon_cli.settings.trust.widening import PERMISSIONS

__all__ = ["show_rules", "explain"]

CATEGORIES = {"bash": "shell", "read_file": "read", "list_files": "read", "search_files": "read",
              "write_file": "edit", "edit_file": "edit"}
_CALL = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*)(?:\((.*)\))?$", re.S)


def show_rules(loaded: LoadedSettings, root: Path) -> str:
    policy = load_policy(loaded, root)
    lines = [f"mode: {policy.mode}  ({policy.mode_source})"]
    rules = policy.rules_with_sources()
    for action in ("deny", "ask", "allow"):
        mine = [r for r in rules if r.action == action]
        lines.append(f"{action}:" + ("" if mine else " (none)"))
        width = max((len(r.text) for r in mine), default=0)
        lines += [f"  {r.text:<{width}}  # {r.source}" for r in mine]
    lines.append("precedence: deny > ask > allow > mode")
    lines += [f"note: {line}" for line in _mcp_notes(loaded, root, rules)]
    lines.append(f"sensitive paths (never allowed by a mode alone): {SENSITIVE_DESCRIPTION}")
    lines += waiting_lines(loaded.trust.assess(), lambda item: item.source == PERMISSIONS or item.kind == "mode")
    return "\n".join(lines)


def _mcp_notes(loaded: LoadedSettings, root: Path, rules: list[Any]) -> list[str]:
    """Rules naming an MCP server that is not configured, or written the old way (servers not started)."""
    from axon_cli.app.reports.mcp_rules import mcp_rule_notes
    from axon_cli.settings.mcp_servers import load_servers

    entries, _problems = load_servers(loaded, root)
    return mcp_rule_notes(rules, {e.name: None for e in entries})


def _spec_facts(tool: str, arg: str | None) -> tuple[str, dict[str, Any], bool, bool, str]:
    """Category, input, read-only, destructive and source of a call written as ``tool(arg)``."""
    from axon_cli.tools.registry import ToolRegistry

    spec = ToolRegistry.with_builtins().get(tool)
    category = spec.category if spec is not None else CATEGORIES.get(tool, "other")
    source = spec.source if spec is not None else _mcp_source(tool)
    if category == "shell":
        return category, {"command": arg or ""}, False, False, source
    if category in ("read", "edit"):
        return category, {"path": arg or "."}, category == "read", False, source
    if tool == "web_fetch" and source == "builtin":   # web_fetch(domain:HOST) or web_fetch(URL)
        url = f"https://{arg[len('domain:'):]}/" if arg and arg.startswith("domain:") else arg or ""
        return category, {"url": url}, False, False, source
    return category, {}, False, False, source


def _mcp_source(tool: str) -> str:
    """``mcp:SERVER`` for a tool written ``mcp__SERVER__TOOL`` (or the old ``SERVER__TOOL``), else builtin."""
    from axon_cli.policy.tool_names import MCP_PREFIX

    bare = tool[len(MCP_PREFIX):] if tool.startswith(MCP_PREFIX) else tool
    return "mcp:" + bare.split("__")[0] if "__" in bare else "builtin"


def _containment(loaded: LoadedSettings, root: Path) -> Containment | None:
    """The runtime's facts for a shell command: the sandbox this config gets here, and a snapshot."""
    from axon_cli.kernel.errors import ConfigError
    from axon_cli.machinery.sandbox import resolve
    from axon_cli.machinery.snapshots import ProjectSnapshots

    try:
        status = resolve(loaded.settings.sandbox)
    except ConfigError:
        return None
    store = ProjectSnapshots.for_settings(root, loaded.settings)
    return Containment(status.mode == "workspace-write", store.uncovered_now if store.unavailable() is None else None,
                       may_leave=status.leavable)


def _sandbox_line(d: Decision, containment: Containment | None) -> str:
    """Where a shell command runs: inside the sandbox, or outside it (once approved) and why."""
    if containment is None or not containment.confined:
        return "none (the command runs unconfined)"
    if d.outside_sandbox:
        when = "" if d.behavior == "allow" else "once approved, "
        return f"{when}runs outside the sandbox ({d.outside_sandbox})"
    if d.stays_sandboxed:
        return f"runs inside, even if approved ({d.stays_sandboxed})"
    return "runs inside" + ("" if containment.may_leave else " (a sandbox asked for by name is never left)")


def explain(rule_text: str, loaded: LoadedSettings, root: Path) -> str:
    m = _CALL.match(rule_text.strip())
    if not m:
        raise UsageError(f"cannot read {rule_text!r}: write a call like 'bash(git push origin main)' "
                         "or 'read_file(.env)'")
    tool, arg = m.group(1), m.group(2)
    policy = load_policy(loaded, root)
    category, tool_input, read_only, destructive, source = _spec_facts(tool, arg)
    paths = [tool_input["path"]] if category in ("read", "edit") else []
    containment = _containment(loaded, root) if category == "shell" else None

    def in_mode(mode: str) -> Decision:
        return decide(tool, category, tool_input, read_only, destructive, mode, policy.rules, root, policy.home,
                      paths=paths, source=source, resolve=fs_resolver(root, policy.home), containment=containment,
                      which=shutil.which, probe=DISK)

    d = in_mode(policy.mode)
    lines = [f"{rule_text.strip()}: {d.behavior}", f"  decided by: {d.decided_by}", f"  reason: {d.reason}"]
    if category == "shell":
        from axon_cli.shell.analyze import analyze

        a = analyze(arg or "")
        if not a.parsed:
            lines.append(f"  parsed: no ({a.error})")
        lines.append("  simple commands: " + ("; ".join(" ".join(c) for c in a.simple_commands) or "(none)"))
        lines.append(f"  read-only: {'yes' if a.read_only else 'no'}")
        lines.append("  destructive: " + ("yes (" + ", ".join(a.destructive_reasons) + ")"
                                          if a.destructive else "no"))
        lines.append("  sandbox: " + _sandbox_line(d, containment))
    else:
        lines.append(f"  category: {category}" + (f" ({source})" if source != "builtin" else ""))
    if d.behavior == "ask" and d.suggested_rule:
        lines.append(f'  to allow it: add "{d.suggested_rule}" to allow in .axon/permissions.toml')
    lines.append(f"  mode: {policy.mode} ({policy.mode_source})")
    lines.append("  in each mode:")
    width = max(len(m) for m in MODES)
    for mode in MODES:
        other = d if mode == policy.mode else in_mode(mode)
        verdict = {"allow": "runs", "ask": "asks", "deny": "denied"}[other.behavior]
        lines.append(f"    {mode:<{width}}  {verdict:<6}  {other.reason}")
    note = auto_fallback_note("auto", containment) if category == "shell" else None
    if note:
        lines.append(f"  note: {note}")
    return "\n".join(lines)
