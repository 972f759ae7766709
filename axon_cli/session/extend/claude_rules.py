"""Claude Code's tool names, rules and model aliases, as axon reads them in commands and agents.

A command's ``allowed-tools`` and an agent's ``tools`` are written in Claude Code's vocabulary:
``Bash(git add:*)`` (a prefix: ``git add`` and anything after it), ``Bash(git status)`` (exactly
that), ``Read``, ``Edit(src/**)``, ``mcp__server__tool``, comma or space separated or a YAML list.
``rule_of`` turns one entry into an axon rule (``bash(git add *)``, ``read_file``, ``edit_file(src/**)``);
an entry already in axon's words passes unchanged, and a Claude Code tool axon has no counterpart
for gives None (the caller says so and grants nothing for it). A bash rule is matched by the policy
per simple command, so ``Bash(git add:*)`` never covers ``git add . && rm -rf /``.

``TOOL_NAMES`` reads Claude Code's names from the hook contract's table (``claude_vocab.TOOLS``),
plus the names that only go one way (``LS``, ``MultiEdit``, ``Agent``, ``WebSearch``).
"""

from __future__ import annotations

import re
from typing import Any

from axon_cli.session.extend.claude_vocab import TOOLS

__all__ = ["TOOL_NAMES", "rule_of", "entries_of", "tool_of", "session_model", "MODEL_ALIASES"]

TOOL_NAMES: dict[str, str] = {
    **{names.claude: tool for tool, names in TOOLS.items()},
    "LS": "list_files", "MultiEdit": "edit_file", "Agent": "task", "WebSearch": "web_search",
}
FILE_TOOLS = {"read_file", "write_file", "edit_file", "list_files", "search_files"}
# "inherit" and Claude's aliases name no model an arbitrary endpoint serves: the session's model runs
MODEL_ALIASES = {"inherit", "default", "sonnet", "opus", "haiku", "opusplan", "sonnet[1m]", "opus[1m]"}
_ENTRY = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*)(?:\((.*)\))?$", re.S)


def entries_of(value: Any) -> list[str]:
    """The entries of a tools field: a YAML list, or one string separated by commas or spaces
    (never inside parentheses: ``Bash(git add:*)`` is one entry)."""
    if value is None or value == "" or isinstance(value, bool):
        return []
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    out: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in str(value):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth <= 0 and (ch == "," or ch.isspace()):
            out.append("".join(current))
            current, depth = [], 0
            continue
        current.append(ch)
    out.append("".join(current))
    return [e.strip() for e in out if e.strip()]


def _path_pattern(pattern: str) -> str:
    """Claude Code's path forms in axon's: ``//abs`` is absolute, ``/x`` and ``./x`` are the project's."""
    if pattern.startswith("//"):
        return pattern[1:]
    if pattern.startswith("./"):
        return pattern[2:] or "**"
    if pattern.startswith("/"):
        return pattern[1:] or "**"
    return pattern


def rule_of(entry: str) -> str | None:
    """One allowed-tools entry as an axon rule; None for a Claude Code tool axon does not have."""
    entry = entry.strip()
    match = _ENTRY.match(entry)
    if match is None or entry.startswith("mcp__"):
        return entry                      # the rule parser reports a malformed one; MCP names are axon's too
    name, pattern = match.group(1), match.group(2)
    tool = TOOL_NAMES.get(name)
    if tool is None:
        return None if name[:1].isupper() else entry
    if pattern is None or not pattern.strip():
        return tool
    pattern = pattern.strip()
    if tool == "bash":
        pattern = pattern[:-2].rstrip() + " *" if pattern.endswith(":*") else pattern
        return f"bash({pattern})" if pattern != " *" else "bash"
    if tool in FILE_TOOLS:
        return f"{tool}({_path_pattern(pattern)})"
    return f"{tool}({pattern})"


def tool_of(entry: str) -> str | None:
    """The axon tool an agent's ``tools`` entry names (its pattern, if any, dropped)."""
    rule = rule_of(entry)
    return None if rule is None else rule.split("(", 1)[0]


def session_model(value: Any) -> str | None:
    """A ``model`` field: None (the session's model) for ``inherit`` and Claude Code's aliases,
    otherwise the model id as written."""
    if value is None or isinstance(value, bool):
        return None
    text = str(value).strip()
    return None if not text or text.lower() in MODEL_ALIASES else text
