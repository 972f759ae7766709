"""THE list of what a project ships that widens what axon does (the README's "Trust" section).

Each ``Kind`` in ``KINDS`` names one kind of widening content, the project file it is found in and a
finder (``finders``) that yields every item of that kind with where it sits in the file's data, so that
``keep_trusted`` can drop what is not trusted. A hook or MCP server is pinned to the project files
it runs as well as to its table (``pins``: its script, a build tool's Makefile or package.json), so
a ``git pull`` that changes the script makes it pending like a changed command line. Whole project
files that are code or grant tools are the second list, ``files.FILE_KINDS``. Adding a kind is one entry.

Narrowing content is never an item: deny and ask rules, a mode or sandbox at least as strict as the
user's own, and every key not listed here apply whether the folder is trusted or not. A value the
loader would reject (an unknown mode, a rule that is not a string) is left in place, so the loader
still reports it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from axon_cli.settings.trust.finders import (
    SANDBOX_ORDER,
    Baseline,
    Finder,
    Found,
    Where,
    find_api_key,
    find_base_url,
    find_claude_hooks,
    find_command_keys,
    find_diagnostics,
    find_hooks,
    find_mode,
    find_sandbox,
    find_servers,
    find_telemetry,
)
from axon_cli.settings.trust.items import WideningItem, with_pins
from axon_cli.settings.trust.pins import diagnostics_runs, hook_runs, pin, server_runs

__all__ = ["CONFIG", "PERMISSIONS", "MCP_JSON", "CLAUDE_SETTINGS", "CLAUDE_LOCAL", "JSON_SOURCES", "SOURCES", "Baseline",
           "Found", "Kind", "KINDS", "find", "keep_trusted", "allow_item", "SANDBOX_ORDER"]

CONFIG = ".axon/config.toml"
PERMISSIONS = ".axon/permissions.toml"
MCP_JSON = ".mcp.json"
CLAUDE_SETTINGS = ".claude/settings.json"
CLAUDE_LOCAL = ".claude/settings.local.json"
JSON_SOURCES = (MCP_JSON, CLAUDE_SETTINGS, CLAUDE_LOCAL)
SOURCES = (CONFIG, PERMISSIONS, MCP_JSON, CLAUDE_SETTINGS, CLAUDE_LOCAL)


@dataclass(frozen=True)
class Kind:
    kind: str
    source: str       # the project file it is found in
    widens: str       # what it opens up, for the README and `axon trust`
    find: Finder
    catch_all: bool = False   # skips whatever another kind of the same file already found


def allow_item(rule: str) -> WideningItem:
    """The item of one allow rule of ``.axon/permissions.toml`` (also what the ``p`` answer records)."""
    rule = rule.strip()
    return WideningItem("allow", rule, PERMISSIONS, f'allow rule "{rule}": matching calls run without asking', rule)


def _allow(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
    rules = data.get("allow")
    for i, rule in enumerate(rules if isinstance(rules, list) else []):
        if isinstance(rule, str) and rule.strip():
            yield Found(allow_item(rule), ("allow", i))


KINDS: tuple[Kind, ...] = (
    Kind("mode", PERMISSIONS, "`mode` wider than your own (accept-edits, auto, yolo): calls run without asking", find_mode),
    Kind("mode", CONFIG, "`mode` wider than your own, as in permissions.toml", find_mode),
    Kind("allow", PERMISSIONS, "each `allow` rule: the calls it covers run without asking", _allow),
    Kind("sandbox", CONFIG, "`sandbox` less strict than your own default (off < auto, workspace-write < "
                            "read-only; an unknown value counts as less strict)", find_sandbox),
    Kind("base_url", CONFIG, "`base_url`: where your API key and the whole conversation are sent", find_base_url),
    Kind("api_key", CONFIG, "`api_key`: whose account the conversation goes to", find_api_key),
    Kind("telemetry", CONFIG, "`[telemetry]` (other than `enabled = false`): usage data is sent to a collector",
         find_telemetry),
    Kind("mcp_server", CONFIG, "each `[mcp_servers.NAME]`: a command axon starts (shown with its arguments, "
                               "env and cwd) or a URL it connects to (with its headers)", find_servers("mcp_servers")),
    Kind("mcp_server", MCP_JSON, "each `mcpServers` entry, shown the same way", find_servers("mcpServers")),
    Kind("hook", CONFIG, "each `[[hooks.EVENT]]` table: a shell command axon runs", find_hooks),
    Kind("hook", CLAUDE_SETTINGS, "each command in Claude Code's `hooks` (project settings)", find_claude_hooks),
    Kind("hook", CLAUDE_LOCAL, "each command in Claude Code's `hooks` (local project settings)", find_claude_hooks),
    Kind("diagnostics", CONFIG, "each `[diagnostics]` entry: a command axon runs after an edit of a file "
                                "matching its glob", find_diagnostics),
    Kind("command_key", CONFIG, "any other key naming a command to run (`…command`, `…cmd`, `…shell`, "
                                "`…editor`, …), at any depth", find_command_keys, catch_all=True),
)


def _under(where: Where, roots: list[Where]) -> bool:
    return any(where[:len(r)] == r for r in roots)


def find(source: str, data: dict[str, Any], base: Baseline, root: Path | None = None) -> list[Found]:
    """Every widening item of one project file's data; with the project ``root``, each hook and MCP
    server is pinned to the project files it runs too (``pins``)."""
    found: list[Found] = []
    for kind in KINDS:
        if kind.source != source:
            continue
        roots = [f.where for f in found]
        found += [f for f in kind.find(data, base, source) if not (kind.catch_all and _under(f.where, roots))]
    return found if root is None else [_pinned(f, data, root) for f in found]


_RUNS_FILES = {"hook": hook_runs, "mcp_server": server_runs, "diagnostics": diagnostics_runs}


def _pinned(found: Found, data: dict[str, Any], root: Path) -> Found:
    files = _RUNS_FILES.get(found.item.kind)
    if files is None:
        return found
    raw: Any = data
    for key in found.where:
        raw = raw[key]
    runs = files(raw, root)
    return Found(with_pins(found.item, () if runs.unknown else pin(root, runs.files), runs.unknown), found.where)


def _order(where: Where) -> tuple[tuple[int, str, int], ...]:
    return tuple((0, "", k) if isinstance(k, int) else (1, str(k), 0) for k in where)


def _drop(node: Any, where: Where) -> None:
    """Delete ``where`` from ``node``; a table or list left empty by it goes too (as if never set)."""
    head, rest = where[0], where[1:]
    if rest:
        _drop(node[head], rest)
        if not node[head]:
            del node[head]
    else:
        del node[head]


def keep_trusted(source: str, data: dict[str, Any], base: Baseline, allows: Callable[[WideningItem], bool],
                 root: Path | None = None) -> tuple[dict[str, Any], list[WideningItem]]:
    """THE filter: ``data`` without the widening items ``allows`` refuses, and those items."""
    pending = [f for f in find(source, data, base, root) if not allows(f.item)]
    if not pending:
        return data, []
    kept = copy.deepcopy(data)
    for where in sorted((f.where for f in pending), key=_order, reverse=True):
        _drop(kept, where)
    return kept, [f.item for f in pending]
