"""Claude Code's names for axon's tools, as data: what a hook script sees and may send back.

Hook input shows each call as Claude Code would (``Bash`` with ``command``, ``Read``/``Write``/``Edit``
with an absolute ``file_path``, ``Glob``, ``Grep``, ``LS``, ``TodoWrite``, ``Task``); a tool with no entry
here (an MCP tool ``mcp__SERVER__TOOL``, a project's Python tool, ``memory_save``) keeps its own name and
arguments. ``to_claude`` maps a call out, ``from_claude`` maps a hook's ``updatedInput`` back, and
``tool_response`` shapes a result the way Claude Code's PostToolUse input does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["ToolNames", "TOOLS", "claude_name", "names_of", "to_claude", "from_claude", "tool_response",
           "permission_mode", "PERMISSION_MODES"]


@dataclass(frozen=True)
class ToolNames:
    claude: str                                        # Claude Code's tool name
    fields: dict[str, str] = field(default_factory=dict)   # axon argument -> Claude Code field
    paths: tuple[str, ...] = ()                        # Claude fields that hold an absolute path
    millis: tuple[str, ...] = ()                       # Claude fields in milliseconds (axon: seconds)


TOOLS: dict[str, ToolNames] = {
    "bash": ToolNames("Bash", {"command": "command", "timeout": "timeout", "description": "description",
                               "run_in_background": "run_in_background",
                               "outside_sandbox": "dangerouslyDisableSandbox"}, millis=("timeout",)),
    "bash_output": ToolNames("BashOutput", {"job_id": "bash_id"}),
    "kill_shell": ToolNames("KillShell", {"job_id": "shell_id"}),
    "read_file": ToolNames("Read", {"path": "file_path", "offset": "offset", "limit": "limit"}, ("file_path",)),
    "write_file": ToolNames("Write", {"path": "file_path", "content": "content"}, ("file_path",)),
    "edit_file": ToolNames("Edit", {"path": "file_path", "old_string": "old_string", "new_string": "new_string",
                                    "replace_all": "replace_all"}, ("file_path",)),
    "list_files": ToolNames("Glob", {"pattern": "pattern", "path": "path"}, ("path",)),
    "search_files": ToolNames("Grep", {"pattern": "pattern", "path": "path", "glob": "glob",
                                       "ignore_case": "-i"}, ("path",)),
    "todo_write": ToolNames("TodoWrite", {"todos": "todos"}),
    "task": ToolNames("Task", {"description": "description", "prompt": "prompt", "agent": "subagent_type"}),
    "web_fetch": ToolNames("WebFetch", {"url": "url", "prompt": "prompt"}),
}
LS = ToolNames("LS", {"path": "path"}, ("path",))      # list_files without a pattern lists one folder

PERMISSION_MODES = {"read-only": "plan", "plan": "plan", "default": "default", "accept-edits": "acceptEdits",
                    "auto": "acceptEdits", "yolo": "bypassPermissions"}


def _names(tool: str, args: dict[str, Any] | None) -> ToolNames | None:
    names = TOOLS.get(tool)
    if tool == "list_files" and not (args or {}).get("pattern"):
        return LS
    return names


def claude_name(tool: str, args: dict[str, Any] | None = None) -> str:
    """Claude Code's name for ``tool`` (any other name, ``mcp__…`` included, as it is)."""
    names = _names(tool, args)
    return names.claude if names is not None else tool


def names_of(tool: str, args: dict[str, Any] | None = None) -> tuple[str, ...]:
    """Every name a matcher may use for this call: axon's and Claude Code's."""
    other = claude_name(tool, args)
    return (tool,) if other == tool else (other, tool)


def permission_mode(mode: str) -> str:
    """Claude Code's ``permission_mode`` for an axon mode (``auto`` runs edits unasked, like acceptEdits)."""
    return PERMISSION_MODES.get(mode, "default")


def _absolute(value: Any, root: Path) -> Any:
    if not isinstance(value, str):
        return value
    path = Path(value).expanduser()
    return str(path if path.is_absolute() else root / path)


def _relative(value: Any, root: Path) -> Any:
    if not isinstance(value, str) or not Path(value).is_absolute():
        return value
    try:
        return str(Path(value).relative_to(root)) or "."
    except ValueError:
        return value


def to_claude(tool: str, args: dict[str, Any], root: Path) -> tuple[str, dict[str, Any]]:
    """The call as Claude Code shows it to a hook: its tool name and ``tool_input``."""
    names = _names(tool, args)
    if names is None:
        return tool, dict(args)
    out: dict[str, Any] = {}
    for key, value in args.items():
        name = names.fields.get(key, key)
        if name in names.paths:
            value = _absolute(value, root)
        elif name in names.millis and isinstance(value, (int, float)) and not isinstance(value, bool):
            value = int(value * 1000)
        out[name] = value
    return names.claude, out


def from_claude(tool: str, args: dict[str, Any], updated: dict[str, Any], root: Path) -> dict[str, Any]:
    """A hook's ``updatedInput`` (Claude Code's field names, or axon's) as axon's arguments for ``tool``."""
    names = _names(tool, args)
    if names is None:
        return dict(updated)
    back = {claude: axon for axon, claude in names.fields.items()}
    out: dict[str, Any] = {}
    for key, value in updated.items():
        if key in names.paths:
            value = _relative(value, root)
        elif key in names.millis and isinstance(value, (int, float)) and not isinstance(value, bool):
            value = value / 1000
        out[back.get(key, key)] = value
    return out


_EXIT_LINE = re.compile(r"\n?exit code -?\d+(?: \(killed by \w+\))?\s*$")


def tool_response(tool: str, args: dict[str, Any], result: str, root: Path) -> Any:
    """PostToolUse ``tool_response`` in the shape Claude Code gives for that tool."""
    name, shown = to_claude(tool, args, root)
    if name == "Bash":
        stdout = _EXIT_LINE.sub("", result)
        return {"stdout": "" if stdout == "(no output)" else stdout, "stderr": "", "interrupted": False,
                "isImage": False}
    if name == "Write":
        return {"type": "create", "filePath": shown.get("file_path", ""), "content": args.get("content", ""),
                "success": True}
    if name == "Edit":
        return {"filePath": shown.get("file_path", ""), "oldString": args.get("old_string", ""),
                "newString": args.get("new_string", ""), "replaceAll": bool(args.get("replace_all")),
                "userModified": False, "success": True}
    if name == "Read":
        lines = result.count("\n") + 1 if result else 0
        return {"type": "text", "file": {"filePath": shown.get("file_path", ""), "content": result, "numLines": lines,
                                         "startLine": args.get("offset") or 1, "totalLines": lines}}
    if name in ("Glob", "LS"):
        files = [line for line in result.splitlines() if line.strip()]
        return {"filenames": files, "numFiles": len(files), "truncated": False}
    if name == "Grep":
        return {"mode": "content", "content": result, "numLines": result.count("\n") + 1 if result else 0}
    if name == "TodoWrite":
        return {"oldTodos": [], "newTodos": args.get("todos", [])}
    return [{"type": "text", "text": result}]
