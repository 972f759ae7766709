"""``axon mcp list``: each configured server, where it is configured, its status and its tools.

The servers are really started (in parallel, each bounded by its ``startup_timeout``) and then
stopped. A broken server is one status line, never a traceback.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from axon_cli.config import LoadedSettings
from axon_cli.masking import mask
from axon_cli.mcp.client import McpManager, ServerState
from axon_cli.mcp.servers import describe_target, load_servers
from axon_cli.mcp.tools import tool_name
from axon_cli.reports.trust import waiting_lines

__all__ = ["list_servers_text"]

NONE_CONFIGURED = ("No MCP servers configured. Add [mcp_servers.NAME] (command/args/env/cwd, or url) to "
                   ".axon/config.toml or the user config.toml, or an \"mcpServers\" object to .mcp.json.")


def list_servers_text(loaded: LoadedSettings, project_root: Path) -> str:
    entries, problems = load_servers(loaded, project_root)
    lines = [f"warning: {p}" for p in problems]
    waiting = waiting_lines(loaded.trust.assess(), lambda item: item.kind == "mcp_server")
    if not entries:
        return "\n".join([*lines, *waiting] if waiting else [*lines, NONE_CONFIGURED])
    manager = McpManager(entries).start()
    try:
        manager.wait_ready()
        for st in manager.servers.values():
            if lines:
                lines.append("")
            lines.extend(_server_lines(st, project_root))
    finally:
        manager.close()
    return mask("\n".join([*lines, *([""] if waiting else []), *waiting]))


def _server_lines(st: ServerState, project_root: Path) -> list[str]:
    source = st.entry.source
    with contextlib.suppress(ValueError):
        source = str(Path(source).relative_to(project_root))
    out = [f"{st.name}  ({st.entry.transport}: {describe_target(st.entry)})",
           f"  configured in: {source}"]
    if st.status in ("connected", "closed") and not st.error:
        n = len(st.tools)
        out.append(f"  status: connected, {n} tool{'s' if n != 1 else ''}")
        width = max((len(tool_name(st.name, t.name)) for t in st.tools), default=0)
        for t in st.tools:
            first = (t.description.strip().splitlines() or [t.title or ""])[0]
            flag = " (read-only)" if t.read_only else ""
            out.append(f"    {tool_name(st.name, t.name):<{width}}  {first[:100]}{flag}")
    else:
        out.append(f"  status: failed: {st.error or 'unknown error'}")
    return out
