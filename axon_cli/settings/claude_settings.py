"""Claude Code's own settings files as a source of hooks, used as they are.

``~/.claude/settings.json`` (the user's), ``.claude/settings.json`` and ``.claude/settings.local.json``
(the project's: behind folder trust like ``[[hooks.EVENT]]`` in .axon/config.toml) hold
``{"hooks": {EVENT: [{"matcher": "Bash", "hooks": [{"type": "command", "command": "…", "timeout": 60}]}]}}``.
``hook_tables`` turns one file's data into axon's hook tables (one per command, each remembering its
file); everything else in those files is Claude Code's business and is ignored here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from axon_cli.kernel.errors import ConfigError

__all__ = ["read_claude_settings", "hook_tables", "user_claude_settings", "MAX_TIMEOUT"]

MAX_TIMEOUT = 3600.0


def user_claude_settings() -> Path:
    return Path.home() / ".claude" / "settings.json"


def read_claude_settings(path: Path) -> dict[str, Any]:
    """The file's object ({} when it is missing); a file that cannot be used (unreadable, too large,
    not UTF-8, not JSON, nested too deep: ``loaders``) is one ConfigError naming the file."""
    from axon_cli.kernel.loaders import BadFile, load_json

    try:
        data = load_json(path)
    except BadFile as e:
        if e.kind == "read" and not path.exists():
            return {}
        raise
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: not a JSON object")
    return data


def _bad(path: Path, where: str, what: str) -> ConfigError:
    return ConfigError(f"{path}: hooks.{where} {what}")


def hook_tables(data: dict[str, Any], path: Path, strict: bool = True) -> dict[str, list[dict[str, Any]]]:
    """axon's hook tables for the ``hooks`` of one Claude Code settings file: command hooks only (a
    ``prompt`` or ``agent`` hook needs a model of its own and is left out). ``strict``: a group without
    a ``hooks`` list is an error (not strict: skipped, as trust leaves a group whose commands wait)."""
    hooks = data.get("hooks")
    if hooks is None:
        return {}
    if not isinstance(hooks, dict):
        raise ConfigError(f"{path}: `hooks` is not an object")
    out: dict[str, list[dict[str, Any]]] = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise _bad(path, event, "is not a list")
        for i, group in enumerate(groups):
            entries = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(entries, list):
                if not strict:
                    continue
                raise _bad(path, f"{event}[{i}]", 'has no "hooks" list')
            matcher = group.get("matcher") or ""
            for j, entry in enumerate(entries):
                table = _table(entry, matcher, path, f"{event}[{i}].hooks[{j}]")
                if table is not None:
                    out.setdefault(str(event), []).append(table)
    return out


def _table(entry: Any, matcher: Any, path: Path, where: str) -> dict[str, Any] | None:
    if not isinstance(entry, dict):
        raise _bad(path, where, "is not an object")
    if entry.get("type", "command") != "command":
        return None          # prompt/agent hooks need a model of their own: not run (axon doctor says so)
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise _bad(path, where, 'has no "command"')
    if not isinstance(matcher, str):
        raise _bad(path, where, '"matcher" is not a string')
    table: dict[str, Any] = {"matcher": matcher, "command": command, "source": str(path)}
    timeout = entry.get("timeout")
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0:
        table["timeout"] = min(float(timeout), MAX_TIMEOUT)
    return table


def skipped_types(data: dict[str, Any]) -> list[str]:
    """The ``type`` of each hook axon does not run (``prompt``, ``agent``): for ``axon doctor``."""
    hooks = data.get("hooks")
    found = []
    for event, groups in (hooks.items() if isinstance(hooks, dict) else []):
        for group in groups if isinstance(groups, list) else []:
            for entry in group.get("hooks", []) if isinstance(group, dict) else []:
                if isinstance(entry, dict) and entry.get("type", "command") != "command":
                    found.append(f"{event}: a {entry.get('type')} hook")
    return found
