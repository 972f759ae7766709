"""Which MCP servers are configured: ``[mcp_servers.NAME]`` in config.toml and the project's ``.mcp.json``.

Both sources are merged; config.toml wins on the same name. A project server counts only once the
folder's trust allows it (``loaded.trust``; a pending one is not even validated, let alone started).
``${VAR}`` and ``${VAR:-default}`` in ``command``, ``args``, ``env``, ``cwd``, ``url`` and ``headers``
are expanded from axon's environment; Codex's ``env_vars`` (names passed through),
``bearer_token_env_var`` and ``env_http_headers`` are read from it too.
``.mcp.json`` takes Claude Code's forms (``type`` stdio | http | sse, ``url``, ``headers``).
A broken entry is reported as one line and skipped, a key axon does not use is one warning line;
neither stops axon. ``enabled = false`` (``"disabled": true`` in ``.mcp.json``) keeps an entry
that is listed but never started.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from axon_cli.kernel.errors import ConfigError
from axon_cli.kernel.loaders import load_json, one_line
from axon_cli.settings.config import LoadedSettings, McpServerConfig
from axon_cli.settings.trust.widening import MCP_JSON

__all__ = ["ServerEntry", "load_servers", "read_mcp_json", "expand_vars", "describe_target", "missing_command"]

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
# .mcp.json keys other tools write that axon does not need (``type`` and ``disabled`` are read apart).
_IGNORED_KEYS = {"type", "description", "disabled", "autoApprove", "alwaysAllow", "transportType"}
_TYPES = {"stdio": "stdio", "http": "http", "streamable-http": "http", "streamable_http": "http", "sse": "sse"}


@dataclass
class ServerEntry:
    name: str
    config: McpServerConfig
    source: str                       # the file it came from
    transport: str = "stdio"          # stdio | http | sse


def expand_vars(text: str, env: Mapping[str, str]) -> str:
    """``${VAR}`` → its value ("" when unset); ``${VAR:-default}`` → the default when unset or empty."""
    def sub(m: re.Match[str]) -> str:
        value = env.get(m.group(1), "")
        return value if value or m.group(2) is None else m.group(2)
    return _VAR.sub(sub, text)


def _expanded(cfg: McpServerConfig, env: Mapping[str, str]) -> McpServerConfig:
    def x(value: str | None) -> str | None:
        return None if value is None else expand_vars(value, env)
    passed = {name: env[name] for name in cfg.env_vars if name in env}
    headers = {k: expand_vars(v, env) for k, v in cfg.headers.items()}
    headers.update((k, env[var]) for k, var in cfg.env_http_headers.items() if env.get(var))
    if cfg.bearer_token_env_var and env.get(cfg.bearer_token_env_var):
        headers["Authorization"] = f"Bearer {env[cfg.bearer_token_env_var]}"
    return cfg.model_copy(update={
        "command": x(cfg.command), "args": [expand_vars(a, env) for a in cfg.args],
        "env": {**passed, **{k: expand_vars(v, env) for k, v in cfg.env.items()}}, "cwd": x(cfg.cwd),
        "url": x(cfg.url), "headers": headers,
    })


def _env_problems(name: str, cfg: McpServerConfig, where: str, env: Mapping[str, str]) -> list[str]:
    """A line for each variable a url server's headers should come from that is not set."""
    wanted = [*cfg.env_http_headers.values(), *([cfg.bearer_token_env_var] if cfg.bearer_token_env_var else [])]
    return [f"{where}: MCP server '{one_line(name, 80)}': environment variable {one_line(var, 80)} is not set "
            "(its header is not sent)" for var in wanted if not env.get(var)]


def _transport(cfg: McpServerConfig, declared: str | None) -> str:
    if cfg.command:
        return "stdio"
    if declared in ("http", "sse"):
        return declared
    return "sse" if (cfg.url or "").rstrip("/").endswith("/sse") else "http"


def _check(name: str, cfg: McpServerConfig, where: str, declared: str | None = None) -> str | None:
    if bool(cfg.command) == bool(cfg.url):
        return f"{where}: MCP server '{one_line(name, 80)}' needs exactly one of 'command' or 'url'"
    if declared == "stdio" and cfg.url or declared in ("http", "sse") and cfg.command:
        return f"{where}: MCP server '{one_line(name, 80)}': type \"{declared}\" does not fit its " \
               f"{'url' if cfg.url else 'command'}"
    return None


def _unused_keys(name: str, cfg: McpServerConfig, where: str) -> list[str]:
    """One warning line for each key of the entry that axon does not use."""
    return [f"{where}: MCP server '{one_line(name, 80)}': key '{one_line(key, 80)}' is not used by axon (ignored)"
            for key in (cfg.model_extra or {})]


def _declared_type(raw: dict[str, Any], where: str, name: str) -> tuple[str | None, str | None]:
    """The transport a ``.mcp.json`` entry's ``type`` names, and a problem line when it names none."""
    value = raw.get("type")
    if value is None:
        return None, None
    if isinstance(value, str) and value.lower() in _TYPES:
        return _TYPES[value.lower()], None
    return None, (f"{where}: MCP server '{one_line(name, 80)}': type {one_line(repr(value), 40)} is not "
                  "one of stdio, http, sse")


def read_mcp_json(path: Path, in_force: Callable[[dict[str, Any]], dict[str, Any]]
                  ) -> tuple[list[ServerEntry], list[str]]:
    """The servers of one ``.mcp.json`` that ``in_force`` keeps, and a line for each problem found in them."""
    try:
        data = load_json(path)
    except ConfigError as e:
        return [], [str(e)]
    if isinstance(data, dict):
        kept = in_force(data)
        if "mcpServers" in data and "mcpServers" not in kept:
            return [], []             # every server waits for trust
        data = kept
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        return [], [f"{path}: expected an object with an \"mcpServers\" object"]
    entries: list[ServerEntry] = []
    problems: list[str] = []
    for name, raw in servers.items():
        shown = one_line(name, 80)        # problem lines stay one line, never a screenful
        if not isinstance(raw, dict):
            problems.append(f"{path}: MCP server '{shown}' must be an object")
            continue
        declared, problem = _declared_type(raw, str(path), name)
        fields = {k: v for k, v in raw.items() if k not in _IGNORED_KEYS}
        if raw.get("disabled") is True:
            fields["enabled"] = False
        try:
            cfg = McpServerConfig.model_validate(fields)
        except ValidationError as e:
            err = e.errors()[0]
            key = ".".join(str(p) for p in err["loc"])
            problems.append(f"{path}: MCP server '{shown}': key '{one_line(key, 80)}': {one_line(err['msg'].lower())}")
            continue
        problem = problem or _check(name, cfg, str(path), declared)
        if problem:
            problems.append(problem)
            continue
        problems += _unused_keys(name, cfg, str(path))
        entries.append(ServerEntry(name, cfg, str(path), _transport(cfg, declared)))
    return entries, problems


def load_servers(loaded: LoadedSettings, project_root: Path,
                 env: Mapping[str, str] | None = None) -> tuple[list[ServerEntry], list[str]]:
    """Every configured server (config.toml wins over .mcp.json on a name) and the problems found."""
    env = os.environ if env is None else env
    entries: dict[str, ServerEntry] = {}
    problems: list[str] = []
    mcp_json = project_root / MCP_JSON
    if mcp_json.is_file():
        found, problems = read_mcp_json(mcp_json, lambda data: loaded.trust.in_force(MCP_JSON, data))
        entries.update((e.name, e) for e in found)
    source = loaded.source("mcp_servers")
    for name, cfg in loaded.settings.mcp_servers.items():
        problem = _check(name, cfg, source)
        if problem:
            problems.append(problem)
            entries.pop(name, None)
            continue
        problems += _unused_keys(name, cfg, source)
        entries[name] = ServerEntry(name, cfg, source, _transport(cfg, None))
    for entry in entries.values():
        if entry.config.enabled and entry.transport != "stdio":
            problems += _env_problems(entry.name, entry.config, entry.source, env)
        entry.config = _expanded(entry.config, env)
        if entry.config.cwd:
            cwd = Path(entry.config.cwd).expanduser()
            entry.config.cwd = str(cwd if cwd.is_absolute() else project_root / cwd)
    return list(entries.values()), problems


def describe_target(entry: ServerEntry) -> str:
    """One line: what runs (the command line) or where it connects (the URL)."""
    cfg = entry.config
    if cfg.command:
        return " ".join([cfg.command, *cfg.args])
    return f"{entry.transport} {cfg.url}"


def missing_command(entry: ServerEntry) -> str | None:
    """Why a stdio server's command cannot run (not found, not executable), or None if it can."""
    cfg = entry.config
    if entry.transport != "stdio" or not cfg.command:
        return None
    command = cfg.command
    if os.sep in command and not os.path.isabs(command) and cfg.cwd:
        command = os.path.join(cfg.cwd, command)
    search = cfg.env.get("PATH") or os.environ.get("PATH")
    if shutil.which(command, path=search) is None:
        return f"command not found: {cfg.command}"
    return None
