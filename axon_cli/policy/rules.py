"""Permission rules: parsing ``tool`` / ``tool(pattern)`` from the permission files, and matching.

Files: ``<project>/.axon/permissions.toml`` and ``<user config dir>/permissions.toml``, keys
``mode``, ``allow``, ``ask``, ``deny``. Any malformed file, key or rule is a ConfigError naming the
file, the rule and what is wrong.

Matching: a ``bash`` pattern is a glob over one simple command's words joined by spaces, where
``*`` matches anything (spaces included) and a trailing `` *`` also matches the bare command
(``bash(git push *)`` matches ``git push``). A file-tool pattern is a gitignore-style glob over the
project-relative path (``src/**``, ``.env*`` at any depth, ``secrets`` and everything under it);
``~/…`` and absolute patterns match absolute paths outside the project.
"""

from __future__ import annotations

import re
import reprlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from axon_cli.kernel.errors import ConfigError
from axon_cli.kernel.loaders import one_line
from axon_cli.kernel.state import read_toml
from axon_cli.settings.mode_names import MODES
from axon_cli.settings.trust.folder import FolderTrust
from axon_cli.settings.trust.widening import PERMISSIONS

__all__ = ["Rule", "RuleSet", "Action", "parse_rule", "load_rules", "rules_from_data", "bash_match",
           "path_match", "display_path", "MODES", "FILE_TOOLS"]

Action = Literal["allow", "ask", "deny"]
FILE_TOOLS = {"read_file", "write_file", "edit_file", "list_files", "search_files"}
_RULE = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*(?:__\*)?)(?:\((.*)\))?$", re.S)   # mcp__SERVER__* too


@dataclass(frozen=True)
class Rule:
    action: Action
    tool: str
    pattern: str | None
    text: str
    source: str = "session"

    def describe(self) -> str:
        return f'{self.action} rule "{self.text}" in {self.source}'


@dataclass
class RuleSet:
    rules: list[Rule] = field(default_factory=list)
    mode: str | None = None
    mode_source: str | None = None
    files: list[Path] = field(default_factory=list)

    def of(self, action: Action, tool: str) -> list[Rule]:
        return [r for r in self.rules if r.action == action and r.tool == tool]

    def covering(self, action: Action, names: frozenset[str]) -> list[Rule]:
        """The rules of ``action`` whose tool is one of ``names`` (``mcp.names.rule_names``: an MCP
        tool is also covered by ``mcp__SERVER`` and its old ``SERVER__TOOL`` spelling)."""
        return [r for r in self.rules if r.action == action and r.tool in names]


def display_path(path: Path, project_root: Path) -> str:
    try:
        return str(path.relative_to(project_root))
    except ValueError:
        home = str(Path.home())
        s = str(path)
        return "~" + s[len(home):] if s.startswith(home + "/") else s


def parse_rule(text: Any, action: Action, source: str) -> Rule:
    """One rule; ConfigError saying what is wrong with it."""
    shown = one_line(text, 200) if isinstance(text, str) else one_line(reprlib.repr(text), 200)
    where = f'{source}: {action} rule "{shown}"' if isinstance(text, str) else f"{source}: {action} rule {shown}"
    if not isinstance(text, str):
        raise ConfigError(f"{where}: must be a string like \"bash(git status)\"")
    m = _RULE.match(text.strip())
    if not m:
        raise ConfigError(f"{where}: expected TOOL or TOOL(PATTERN), e.g. \"bash(git status)\" or \"edit_file(src/**)\"")
    tool, pattern = m.group(1), m.group(2)
    if pattern is not None and not pattern.strip():
        raise ConfigError(f"{where}: empty pattern (write \"{tool}\" to match every call)")
    if pattern is not None and "\n" in pattern:
        raise ConfigError(f"{where}: a pattern cannot span lines")
    return Rule(action, tool, pattern.strip() if pattern is not None else None, text.strip(), source)


def rules_from_data(data: dict[str, Any], source: str) -> RuleSet:
    out = RuleSet()
    for key, value in data.items():
        if key == "mode":
            if value not in MODES:
                raise ConfigError(f"{source}: mode {one_line(reprlib.repr(value), 120)} is not one of {', '.join(MODES)}")
            out.mode, out.mode_source = value, source
        elif key in ("allow", "ask", "deny"):
            if not isinstance(value, list):
                raise ConfigError(f"{source}: '{key}' must be a list of rules, like {key} = [\"bash(git status)\"]")
            out.rules += [parse_rule(item, key, source) for item in value]   # type: ignore[arg-type]
        else:
            raise ConfigError(f"{source}: unknown key '{one_line(key, 120)}' (known keys: mode, allow, ask, deny)")
    return out


def load_rules(project_root: Path, user_dir: Path, trust: FolderTrust | None = None) -> RuleSet:
    """The user file, then the project file (the project's ``mode`` wins). Of the project file, only
    what ``trust`` allows widens (deny and ask rules always count); no ``trust``: the folder's record."""
    trust = trust or FolderTrust.load(project_root, user_dir)
    merged = RuleSet()
    project_file = project_root / PERMISSIONS
    for path in (user_dir / "permissions.toml", project_file):
        if not path.is_file():
            continue
        label = display_path(path, project_root)
        data = read_toml(path)
        part = rules_from_data(data, label)             # a malformed file is reported, trusted or not
        if path == project_file:
            part = rules_from_data(trust.in_force(PERMISSIONS, data), label)
        merged.rules += part.rules
        merged.files.append(path)
        if part.mode:
            merged.mode, merged.mode_source = part.mode, part.mode_source
    return merged


@lru_cache(maxsize=512)
def bash_regex(pattern: str) -> re.Pattern[str]:
    pattern = " ".join(pattern.split())
    tail = ""
    if pattern.endswith(" *"):
        pattern, tail = pattern[:-2], "(?: .*)?"
    body = ".*".join(re.escape(part) for part in pattern.split("*"))
    return re.compile(f"^{body}{tail}$", re.S)


def bash_match(pattern: str, argv: list[str]) -> bool:
    """Whether a bash rule pattern covers one simple command."""
    return bool(bash_regex(pattern).match(" ".join(argv)))


@lru_cache(maxsize=512)
def _gitignore_regex(pattern: str) -> re.Pattern[str]:
    anchored = "/" in pattern.rstrip("/")
    pattern = pattern.strip("/") if not pattern.startswith("//") else pattern
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 1:]:
            end = pattern.index("]", i + 1)
            body = pattern[i + 1:end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body.replace("\\", "\\\\")) + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    prefix = "" if anchored else "(?:.*/)?"
    return re.compile(f"^{prefix}{''.join(out)}(?:/.*)?$", re.S)


def path_match(pattern: str, rel: str | None, absolute: str, home: str) -> bool:
    """Whether a file-tool pattern covers a path (``rel`` is None outside the project)."""
    if pattern.startswith("~/"):
        pattern = home.rstrip("/") + pattern[1:]
    if pattern.startswith("/") and (rel is None or pattern.startswith(home)):
        try:
            return bool(_gitignore_regex("//" + pattern.lstrip("/")).match("//" + absolute.lstrip("/")))
        except re.error:
            return False
    if rel is None:
        return False
    try:
        return bool(_gitignore_regex(pattern).match(rel))
    except re.error:
        return False
