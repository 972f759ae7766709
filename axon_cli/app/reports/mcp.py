"""``axon mcp`` (``axon mcp list``): each configured server, where it is configured, its status and
its tools; ``mcp_tool_lines`` is the MCP part of ``axon tools``.

The servers are really started (in parallel, each bounded by its ``startup_timeout``) and then
stopped. A broken server is one status line, never a traceback.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from axon_cli.app.reports.trust import waiting_lines
from axon_cli.machinery.masking import mask
from axon_cli.machinery.sandbox.child_env import configure as configure_child_env
from axon_cli.policy.tool_names import tool_name
from axon_cli.session.mcp.client import McpManager, ServerState
from axon_cli.session.mcp.convert import RemoteTool
from axon_cli.settings.config import LoadedSettings
from axon_cli.settings.mcp_servers import ServerEntry, describe_target, load_servers

__all__ = ["list_servers_text", "mcp_tool_lines", "started"]

NONE_CONFIGURED = ("No MCP servers configured. Add [mcp_servers.NAME] (command/args/env/cwd, or url) to "
                   ".axon/config.toml or the user config.toml, or an \"mcpServers\" object to .mcp.json.")


def list_servers_text(loaded: LoadedSettings, project_root: Path) -> str:
    entries, problems = load_servers(loaded, project_root)
    lines = [f"warning: {p}" for p in problems]
    waiting = waiting_lines(loaded.trust.assess(), lambda item: item.kind == "mcp_server")
    if not entries:
        return "\n".join([*lines, *waiting] if waiting else [*lines, NONE_CONFIGURED])
    for st in started(entries, project_root, loaded):
        if lines:
            lines.append("")
        lines.extend(_server_lines(st, project_root))
    return mask("\n".join([*lines, *([""] if waiting else []), *waiting]))


def started(entries: list[ServerEntry], project_root: Path, loaded: LoadedSettings | None = None) -> list[ServerState]:
    """Each server after starting it (bounded by its startup_timeout) and stopping it again (its
    environment built with ``loaded``'s env_pass and credentials, as a session would)."""
    if loaded is not None:
        configure_child_env(loaded.settings)
    manager = McpManager(entries, roots=[project_root]).start()
    try:
        manager.wait_ready()
        return list(manager.servers.values())
    finally:
        manager.close()


def mcp_tool_lines(loaded: LoadedSettings, project_root: Path) -> tuple[list[str], list[str]]:
    """``axon tools``' MCP part: each server's tools under its name (a server that does not start is
    one line), and the problems met reading the configuration."""
    entries, problems = load_servers(loaded, project_root)
    if not entries:
        return [], problems
    lines = ["", "MCP tools (deferred, found and activated with tool_search), by server:"]
    for st in started(entries, project_root, loaded):
        if st.status == "disabled":
            lines.append(f"  {st.name}: disabled (enabled = false)")
        elif st.status in ("connected", "closed") and not st.error:
            lines.append(f"  {st.name}: {len(st.tools)} tool{'s' if len(st.tools) != 1 else ''}")
            width = max((len(tool_name(st.name, t.name)) for t in st.tools), default=0)
            lines += [f"    {tool_name(st.name, t.name):<{width}}  {_first_line(t)}" for t in st.tools]
        else:
            lines.append(f"  {st.name}: failed: {st.error or 'unknown error'}")
    return [mask(line) for line in lines], problems


def _first_line(tool: RemoteTool) -> str:
    first = (tool.description.strip().splitlines() or [tool.title or ""])[0]
    return first[:100] + (" (read-only)" if tool.read_only else "")


def _server_lines(st: ServerState, project_root: Path) -> list[str]:
    source = st.entry.source
    with contextlib.suppress(ValueError):
        source = str(Path(source).relative_to(project_root))
    out = [f"{st.name}  ({st.entry.transport}: {describe_target(st.entry)})",
           f"  configured in: {source}"]
    if st.status == "disabled":
        out.append("  status: disabled (enabled = false): not started")
    elif st.status in ("connected", "closed") and not st.error:
        n = len(st.tools)
        out.append(f"  status: connected, {n} tool{'s' if n != 1 else ''}")
        width = max((len(tool_name(st.name, t.name)) for t in st.tools), default=0)
        out += [f"    {tool_name(st.name, t.name):<{width}}  {_first_line(t)}" for t in st.tools]
    else:
        out.append(f"  status: failed: {st.error or 'unknown error'}")
    return out
