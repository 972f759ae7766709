"""Helpers for the Claude Code hook tests: wire scripts through `.claude/settings.json` as a user would."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "claude_hooks"
TRUSTED = {"AXON_TRUST": "1"}


def install(project: Path, *names: str) -> None:
    """Copy scripts into the project's .claude/hooks/ (where such collections keep them)."""
    hooks = project / ".claude" / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy2(FIXTURES / name, hooks / name)


def settings(project: Path, hooks: dict[str, list[tuple[str, str]]], name: str = "settings.json") -> None:
    """``.claude/settings.json`` in Claude Code's shape: {EVENT: [(matcher, command), …]}."""
    data: dict[str, Any] = {"hooks": {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": cmd}]}
                                              for matcher, cmd in groups] for event, groups in hooks.items()}}
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / name).write_text(json.dumps(data, indent=2))


def script(name: str) -> str:
    """The command line Claude Code users write: the script under $CLAUDE_PROJECT_DIR."""
    runner = "python3 " if name.endswith(".py") else "bash "
    return f'{runner}"$CLAUDE_PROJECT_DIR"/.claude/hooks/{name}'


def tool_results(request: Any) -> list[str]:
    return [m["content"] for m in request.messages if m["role"] == "tool"]


def log(project: Path, name: str) -> list[dict[str, Any]]:
    return json.loads((project / "logs" / f"{name}.json").read_text())
