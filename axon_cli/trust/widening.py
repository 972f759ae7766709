"""THE list of what a project ships that widens what axon does (the README's "Trust" section).

Each ``Kind`` in ``KINDS`` names one kind of widening content, the project file it is found in and a
finder that yields every item of that kind with where it sits in the file's data, so that
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
import json
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from axon_cli.permissions.modes import DEFAULT_RANK, MODES
from axon_cli.trust.items import WideningItem, with_pins
from axon_cli.trust.pins import diagnostics_files, hook_files, pin, server_files

__all__ = ["CONFIG", "PERMISSIONS", "MCP_JSON", "CLAUDE_SETTINGS", "CLAUDE_LOCAL", "JSON_SOURCES", "SOURCES", "Baseline",
           "Found", "Kind", "KINDS", "find", "keep_trusted", "allow_item", "MODE_ORDER", "SANDBOX_ORDER"]

CONFIG = ".axon/config.toml"
PERMISSIONS = ".axon/permissions.toml"
MCP_JSON = ".mcp.json"
CLAUDE_SETTINGS = ".claude/settings.json"
CLAUDE_LOCAL = ".claude/settings.local.json"
JSON_SOURCES = (MCP_JSON, CLAUDE_SETTINGS, CLAUDE_LOCAL)
SOURCES = (CONFIG, PERMISSIONS, MCP_JSON, CLAUDE_SETTINGS, CLAUDE_LOCAL)

MODE_ORDER = {mode: i for i, mode in enumerate(MODES)}
SANDBOX_ORDER = {"off": 0, "auto": 1, "workspace-write": 1, "read-only": 2}
_MODE_EFFECT = {"plan": "web fetches may run once you approve them",     # wider than read-only only
                "default": "calls that change things may run once you approve them",
                "accept-edits": "file edits run without asking",
                "auto": "sandboxed, undoable calls run without asking, deletes included",
                "yolo": "every call runs without asking"}
_COMMAND_KEY = re.compile(r"(?:^|_)(?:command|cmd|exec|executable|program|script|shell|editor|pager|helper)s?$")

Where = tuple[Any, ...]        # keys and list indices from the file's top level down to the item


@dataclass(frozen=True)
class Baseline:
    """The user's own settings (their files): a project value at most as wide as these is no item."""
    mode: str = "default"
    sandbox: str = "off"


@dataclass(frozen=True)
class Found:
    item: WideningItem
    where: Where


Finder = Callable[[dict[str, Any], Baseline, str], Iterator[Found]]


@dataclass(frozen=True)
class Kind:
    kind: str
    source: str       # the project file it is found in
    widens: str       # what it opens up, for the README and `axon trust`
    find: Finder
    catch_all: bool = False   # skips whatever another kind of the same file already found


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _mode(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
    value = data.get("mode")
    if isinstance(value, str) and value in _MODE_EFFECT and MODE_ORDER[value] > MODE_ORDER.get(base.mode, DEFAULT_RANK):
        yours = "" if base.mode == "default" else f' (yours: "{base.mode}")'
        yield Found(WideningItem("mode", source, source, f'mode = "{value}"{yours}: {_MODE_EFFECT[value]}', value),
                    ("mode",))


def allow_item(rule: str) -> WideningItem:
    """The item of one allow rule of ``.axon/permissions.toml`` (also what the ``p`` answer records)."""
    rule = rule.strip()
    return WideningItem("allow", rule, PERMISSIONS, f'allow rule "{rule}": matching calls run without asking', rule)


def _allow(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
    rules = data.get("allow")
    for i, rule in enumerate(rules if isinstance(rules, list) else []):
        if isinstance(rule, str) and rule.strip():
            yield Found(allow_item(rule), ("allow", i))


def _sandbox(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
    value = data.get("sandbox")
    if value is None or value == base.sandbox:
        return
    mine, theirs = SANDBOX_ORDER.get(str(value)), SANDBOX_ORDER.get(base.sandbox)
    if mine is None or theirs is None or mine < theirs:     # an unknown value is never assumed strict
        yield Found(WideningItem("sandbox", "sandbox", source, f'sandbox = "{value}" (your own default: '
                                 f'"{base.sandbox}"): commands run with fewer limits', str(value)), ("sandbox",))


def _base_url(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
    url = data.get("base_url")
    if isinstance(url, str) and url:
        yield Found(WideningItem("base_url", "base_url", source, f"endpoint {url}: your API key and the whole "
                                 "conversation are sent there", url), ("base_url",))


def _api_key(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
    key = data.get("api_key")
    if isinstance(key, str) and key:
        tail = f"ending …{key[-4:]}" if len(key) > 12 else "(short)"
        yield Found(WideningItem("api_key", "api_key", source, f"api_key {tail}: requests are made with the "
                                 "project's key, so the conversation goes to its owner's account", key), ("api_key",))


def _telemetry(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
    """A ``[telemetry]`` table that could send data out: anything but ``enabled = false`` alone."""
    table = data.get("telemetry")
    if isinstance(table, dict) and table and table != {"enabled": False}:
        where = table.get("endpoint") or "the OTEL_* variables' collector"
        yield Found(WideningItem("telemetry", "telemetry", source, f"[telemetry] {_canonical(table)}: spans and "
                                 f"counters of every run (tools, tokens, decisions) are sent to {where}",
                                 _canonical(table)), ("telemetry",))


def _server_shows(name: str, raw: dict[str, Any]) -> str:
    if raw.get("command"):
        args = raw.get("args")
        args = args if isinstance(args, list) else []
        what = "runs: " + shlex.join([str(raw["command"]), *(str(a) for a in args)])
    else:
        what = f"connects to: {raw.get('url')}"
    extra = []
    if raw.get("cwd"):
        extra.append(f"in {raw['cwd']}")
    for label, key, sep in (("env", "env", "="), ("headers", "headers", ": "), ("headers", "http_headers", ": "),
                            ("headers from variables", "env_http_headers", " from $")):
        if isinstance(raw.get(key), dict) and raw[key]:
            extra.append(f"{label} " + ", ".join(f"{k}{sep}{v}" for k, v in raw[key].items()))
    if isinstance(raw.get("env_vars"), list) and raw["env_vars"]:
        extra.append("passes your variables " + ", ".join(str(v) for v in raw["env_vars"]))
    if raw.get("bearer_token_env_var"):
        extra.append(f"sends ${raw['bearer_token_env_var']} as its bearer token")
    return f'MCP server "{name}" {what}' + (f" ({'; '.join(extra)})" if extra else "")


def _servers(table: str) -> Finder:
    def finder(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
        servers = data.get(table)
        for name, raw in (servers.items() if isinstance(servers, dict) else []):
            if isinstance(raw, dict):
                yield Found(WideningItem("mcp_server", f"{source}:{name}", source, _server_shows(name, raw),
                                         _canonical(raw)), (table, name))
    return finder


def _hooks(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
    hooks = data.get("hooks")
    seen: dict[str, int] = {}
    for event, tables in (hooks.items() if isinstance(hooks, dict) else []):
        for i, table in enumerate(tables if isinstance(tables, list) else []):
            if not isinstance(table, dict):
                continue
            command = table.get("command")
            key = f"{event}:{command if isinstance(command, str) else _canonical(table)}"
            seen[key] = seen.get(key, 0) + 1
            key += f" #{seen[key]}" if seen[key] > 1 else ""
            matcher = f" (tools matching {table['matcher']})" if table.get("matcher") else ""
            shows = f"{event} hook{matcher} runs: {command if isinstance(command, str) else _canonical(table)}"
            yield Found(WideningItem("hook", key, source, shows, _canonical(table)), ("hooks", event, i))


def _claude_hooks(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
    """Each command of Claude Code's ``{"hooks": {EVENT: [{"matcher", "hooks": [{"command"}]}]}}``."""
    hooks = data.get("hooks")
    seen: dict[str, int] = {}
    for event, groups in (hooks.items() if isinstance(hooks, dict) else []):
        for i, group in enumerate(groups if isinstance(groups, list) else []):
            entries = group.get("hooks") if isinstance(group, dict) else None
            for j, entry in enumerate(entries if isinstance(entries, list) else []):
                if not isinstance(entry, dict):
                    continue
                command = entry.get("command")
                shown = command if isinstance(command, str) else _canonical(entry)
                matcher = f" (tools matching {group['matcher']})" if group.get("matcher") else ""
                key = f"{source}:{event}:{shown}"
                seen[key] = seen.get(key, 0) + 1
                key += f" #{seen[key]}" if seen[key] > 1 else ""
                yield Found(WideningItem("hook", key, source,
                                         f"{event} hook{matcher} runs: {shown}",
                                         _canonical({"matcher": group.get("matcher"), **entry})),
                            ("hooks", event, i, "hooks", j))


def _diagnostics(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
    table = data.get("diagnostics")
    for glob, command in (table.items() if isinstance(table, dict) else []):
        shown = command if isinstance(command, str) else _canonical(command)
        yield Found(WideningItem("diagnostics", str(glob), source, f'diagnostics for "{glob}" runs: {shown}',
                                 _canonical(command)), ("diagnostics", glob))


def _command_keys(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
    def walk(node: dict[str, Any], where: Where) -> Iterator[Found]:
        for key, value in node.items():
            here = (*where, key)
            dotted = ".".join(str(k) for k in here)
            if _COMMAND_KEY.search(str(key).lower()):
                yield Found(WideningItem("command_key", dotted, source, f"{dotted} = {_canonical(value)}: a command "
                                         "axon would run", _canonical(value)), here)
            elif isinstance(value, dict):
                yield from walk(value, here)
    yield from walk(data, ())


KINDS: tuple[Kind, ...] = (
    Kind("mode", PERMISSIONS, "`mode` wider than your own (accept-edits, auto, yolo): calls run without asking", _mode),
    Kind("mode", CONFIG, "`mode` wider than your own, as in permissions.toml", _mode),
    Kind("allow", PERMISSIONS, "each `allow` rule: the calls it covers run without asking", _allow),
    Kind("sandbox", CONFIG, "`sandbox` less strict than your own default (off < auto, workspace-write < "
                            "read-only; an unknown value counts as less strict)", _sandbox),
    Kind("base_url", CONFIG, "`base_url`: where your API key and the whole conversation are sent", _base_url),
    Kind("api_key", CONFIG, "`api_key`: whose account the conversation goes to", _api_key),
    Kind("telemetry", CONFIG, "`[telemetry]` (other than `enabled = false`): usage data is sent to a collector",
         _telemetry),
    Kind("mcp_server", CONFIG, "each `[mcp_servers.NAME]`: a command axon starts (shown with its arguments, "
                               "env and cwd) or a URL it connects to (with its headers)", _servers("mcp_servers")),
    Kind("mcp_server", MCP_JSON, "each `mcpServers` entry, shown the same way", _servers("mcpServers")),
    Kind("hook", CONFIG, "each `[[hooks.EVENT]]` table: a shell command axon runs", _hooks),
    Kind("hook", CLAUDE_SETTINGS, "each command in Claude Code's `hooks` (project settings)", _claude_hooks),
    Kind("hook", CLAUDE_LOCAL, "each command in Claude Code's `hooks` (local project settings)", _claude_hooks),
    Kind("diagnostics", CONFIG, "each `[diagnostics]` entry: a command axon runs after an edit of a file "
                                "matching its glob", _diagnostics),
    Kind("command_key", CONFIG, "any other key naming a command to run (`…command`, `…cmd`, `…shell`, "
                                "`…editor`, …), at any depth", _command_keys, catch_all=True),
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


_RUNS_FILES = {"hook": hook_files, "mcp_server": server_files, "diagnostics": diagnostics_files}


def _pinned(found: Found, data: dict[str, Any], root: Path) -> Found:
    files = _RUNS_FILES.get(found.item.kind)
    if files is None:
        return found
    raw: Any = data
    for key in found.where:
        raw = raw[key]
    return Found(with_pins(found.item, pin(root, files(raw, root))), found.where)


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
