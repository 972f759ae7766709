"""``axon tools``: the built-in tools, the Python tools of the user and of the (trusted) project with
their files, and ``task``; active ones first, then the deferred ones; then each MCP server's tools
(the servers are started for it, each bounded by its startup_timeout)."""

from __future__ import annotations

from pathlib import Path

from axon_cli.app.reports.trust import waiting_lines
from axon_cli.session.extend.pytool_loader import load_python_tools
from axon_cli.session.extend.task_tool import SHORT_DESCRIPTION
from axon_cli.settings.config import LoadedSettings
from axon_cli.tools.registry import ToolRegistry, builtin_specs
from axon_cli.tools.spec import ToolSpec

__all__ = ["tools_listing"]


def _line(name: str, text: str, source: str = "") -> str:
    where = f"  ({source})" if source.startswith("python:") else ""
    return f"{name:<14} {text}{where}"


def _lines(specs: list[ToolSpec]) -> list[str]:   # type: ignore[type-arg]
    return [_line(s.name, s.one_line(), s.source.replace("python:", "python: ", 1)) for s in specs]


def tools_listing(loaded: LoadedSettings, project_root: Path) -> tuple[list[str], list[str]]:
    """The lines to print, and the problems met loading the Python tools (for stderr)."""
    registry = ToolRegistry(builtin_specs())
    python = load_python_tools(project_root, loaded.trust, set(registry.names()))
    for spec in python.specs:
        registry.register(spec)
    lines = _lines(registry.active())
    lines += ["", "deferred (found and activated with tool_search):"] + _lines(registry.deferred())
    lines.append(_line("task", SHORT_DESCRIPTION))
    from axon_cli.app.reports.mcp import mcp_tool_lines

    mcp_lines, mcp_problems = mcp_tool_lines(loaded, project_root)
    lines += mcp_lines
    waiting = waiting_lines(loaded.trust.assess(), lambda item: item.kind == "tool") if python.waiting else []
    return lines + ([""] + waiting if waiting else []), python.problems + mcp_problems
