"""Permission rules that name MCP tools, checked against the configured servers: a rule naming a
server that is not configured (or, once the servers were started, a tool a server does not list)
matches nothing, and an old ``SERVER__TOOL`` rule is still honoured but written the new way.
``axon permissions`` checks servers by name; ``axon doctor`` starts them and checks tools too.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from axon_cli.policy.rules import Rule
from axon_cli.policy.tool_names import MCP_PREFIX, legacy_rule_note, sanitize, tool_name
from axon_cli.settings.config import LoadedSettings

__all__ = ["mcp_rule_notes", "doctor_mcp_lines"]


def _server_of(rest: str, servers: list[str]) -> str | None:
    """The configured server a rule's ``mcp__`` remainder names (the longest that fits)."""
    fits = [s for s in servers if rest == sanitize(s) or rest.startswith(sanitize(s) + "__")]
    return max(fits, key=len) if fits else None


def mcp_rule_notes(rules: list[Rule], tools: Mapping[str, list[str] | None]) -> list[str]:
    """One line for each rule that names an MCP server or tool that is not there, or uses the old
    spelling. ``tools``: each configured server and the tool names it listed (None: not started)."""
    servers = list(tools)
    notes: list[str] = []
    for rule in rules:
        where = f'{rule.action} rule "{rule.text}" ({rule.source})'
        if not rule.tool.startswith(MCP_PREFIX):
            old = legacy_rule_note(rule.tool, servers)
            if old:
                notes.append(f"{where}: {old}")
            continue
        rest = rule.tool[len(MCP_PREFIX):]
        server = _server_of(rest.removesuffix("__*"), servers)
        if server is None:
            shown = rest.removesuffix("__*").split("__")[0]
            notes.append(f"{where}: names MCP server '{shown}', which is not configured: it matches nothing")
            continue
        listed = tools[server]
        if listed is not None and rest.removesuffix("__*") != sanitize(server) and \
                rule.tool not in {tool_name(server, t) for t in listed}:
            notes.append(f"{where}: MCP server '{server}' lists no such tool: it matches nothing")
    return notes


def doctor_mcp_lines(loaded: LoadedSettings, root: Path, rules: list[Rule]) -> list[str]:
    """``axon doctor``'s MCP lines: each server's state in one line, then the rule notes."""
    from axon_cli.app.reports.mcp import started
    from axon_cli.settings.mcp_servers import load_servers

    entries, problems = load_servers(loaded, root)
    if not entries and not problems and not any(r.tool.startswith(MCP_PREFIX) for r in rules):
        return []
    lines = [f"mcp: warning: {p}" for p in problems]
    tools: dict[str, list[str] | None] = {}
    for st in started(entries, root) if entries else []:
        if st.status == "disabled":
            lines.append(f"mcp: {st.name}: disabled (enabled = false)")
            tools[st.name] = []
        elif st.status in ("connected", "closed") and not st.error:
            lines.append(f"mcp: {st.name}: connected, {len(st.tools)} tool(s)")
            tools[st.name] = [t.name for t in st.tools]
        else:
            lines.append(f"mcp: {st.name}: failed: {st.error or 'unknown error'}")
            tools[st.name] = None
    return lines + [f"mcp: {note}" for note in mcp_rule_notes(rules, tools)]
