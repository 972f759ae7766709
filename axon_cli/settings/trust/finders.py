"""The finders of ``widening.KINDS``: one per kind of widening content a project file may hold.

A finder takes a file's data, the user's own settings (``Baseline``) and the file's name, and
yields every item of its kind with where it sits in the data (``Found``), so that
``widening.keep_trusted`` can drop what is not trusted. What an item shows the user (an MCP
server's command line, env and headers, a hook's command) is written here.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from axon_cli.settings.mode_names import MODES
from axon_cli.settings.trust.items import WideningItem

__all__ = ["Baseline", "Found", "Finder", "Where", "SANDBOX_ORDER"]

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


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def find_mode(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
    value = data.get("mode")
    if isinstance(value, str) and value in _MODE_EFFECT and MODES.index(value) > MODES.index(base.mode):
        yours = "" if base.mode == "default" else f' (yours: "{base.mode}")'
        yield Found(WideningItem("mode", source, source, f'mode = "{value}"{yours}: {_MODE_EFFECT[value]}', value),
                    ("mode",))


def find_sandbox(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
    value = data.get("sandbox")
    if value is None or value == base.sandbox:
        return
    mine, theirs = SANDBOX_ORDER.get(str(value)), SANDBOX_ORDER.get(base.sandbox)
    if mine is None or theirs is None or mine < theirs:     # an unknown value is never assumed strict
        yield Found(WideningItem("sandbox", "sandbox", source, f'sandbox = "{value}" (your own default: '
                                 f'"{base.sandbox}"): commands run with fewer limits', str(value)), ("sandbox",))


def find_base_url(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
    url = data.get("base_url")
    if isinstance(url, str) and url:
        yield Found(WideningItem("base_url", "base_url", source, f"endpoint {url}: your API key and the whole "
                                 "conversation are sent there", url), ("base_url",))


def find_api_key(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
    key = data.get("api_key")
    if isinstance(key, str) and key:
        tail = f"ending …{key[-4:]}" if len(key) > 12 else "(short)"
        yield Found(WideningItem("api_key", "api_key", source, f"api_key {tail}: requests are made with the "
                                 "project's key, so the conversation goes to its owner's account", key), ("api_key",))


def find_telemetry(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
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


def find_servers(table: str) -> Finder:
    def finder(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
        servers = data.get(table)
        for name, raw in (servers.items() if isinstance(servers, dict) else []):
            if isinstance(raw, dict):
                yield Found(WideningItem("mcp_server", f"{source}:{name}", source, _server_shows(name, raw),
                                         _canonical(raw)), (table, name))
    return finder


def find_hooks(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
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


def find_claude_hooks(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
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


def find_diagnostics(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
    table = data.get("diagnostics")
    for glob, command in (table.items() if isinstance(table, dict) else []):
        shown = command if isinstance(command, str) else _canonical(command)
        yield Found(WideningItem("diagnostics", str(glob), source, f'diagnostics for "{glob}" runs: {shown}',
                                 _canonical(command)), ("diagnostics", glob))


def find_command_keys(data: dict[str, Any], base: Baseline, source: str) -> Iterator[Found]:
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
