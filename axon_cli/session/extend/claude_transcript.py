"""A copy of the conversation in Claude Code's transcript format, for hooks that read ``transcript_path``.

One compact JSON object a line (``{"type": "user"|"assistant", "message": {"role", "content"}, "uuid",
"parentUuid", "sessionId", "timestamp", "cwd", …}``), as Claude Code writes it: a prompt's content is a
string; an assistant line holds ``text`` and ``tool_use`` blocks (Claude Code's tool names and input
fields); a tool result is a user line with a ``tool_result`` block. The file sits beside axon's own
session (``.axon/sessions/ID.claude.jsonl``), only grows, and is brought up to date before each hook
runs; axon's session format is untouched. Every line is masked (``masking.written``), as axon's own is.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

from axon_cli.kernel.loaders import json_value
from axon_cli.machinery.masking.written import append_lines, masked_line
from axon_cli.session.extend.claude_vocab import to_claude

__all__ = ["ClaudeTranscript"]


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f".{int(time.time() * 1000) % 1000:03d}Z"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return "" if content is None else str(content)


class ClaudeTranscript:
    def __init__(self, path: Path, session_id: str, project_root: Path) -> None:
        self.path = path
        self.session_id = session_id
        self.project_root = project_root
        self._written: list[dict[str, Any]] = []    # the message objects already in the file
        self._parent: str | None = None

    def sync(self, messages: list[dict[str, Any]]) -> None:
        """Append the messages not written yet (system messages are not part of Claude's transcript)."""
        done = {id(m) for m in self._written}
        new = [m for m in messages if id(m) not in done]
        lines = [line for m in new for line in self._lines(m)]
        self._written.extend(new)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # masked like axon's own transcript; created even when empty: scripts test it exists
        append_lines(self.path, [masked_line(line, separators=(",", ":"), default=str) for line in lines], sync=True)

    def _lines(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        role = message.get("role")
        if role == "user":
            return [self._line("user", {"role": "user", "content": message.get("content") or ""})]
        if role == "assistant":
            blocks: list[dict[str, Any]] = []
            if text := _text(message.get("content")):
                blocks.append({"type": "text", "text": text})
            for call in message.get("tool_calls") or []:
                blocks.append(self._tool_use(call))
            return [self._line("assistant", {"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message",
                                             "role": "assistant", "content": blocks})]
        if role == "tool":
            block = {"tool_use_id": message.get("tool_call_id", ""), "type": "tool_result",
                     "content": _text(message.get("content"))}
            return [self._line("user", {"role": "user", "content": [block]})]
        return []

    def _tool_use(self, call: dict[str, Any]) -> dict[str, Any]:
        function = call.get("function") or {}
        try:
            args = json_value(function.get("arguments") or "{}")
        except ValueError:
            args = {}
        name, shown = to_claude(str(function.get("name", "")), args if isinstance(args, dict) else {},
                                self.project_root)
        return {"type": "tool_use", "id": call.get("id", ""), "name": name, "input": shown}

    def _line(self, kind: str, message: dict[str, Any]) -> dict[str, Any]:
        line_id = str(uuid.uuid4())
        line = {"parentUuid": self._parent, "isSidechain": False, "userType": "external",
                "cwd": str(self.project_root), "sessionId": self.session_id, "type": kind,
                "message": message, "uuid": line_id, "timestamp": _now()}
        self._parent = line_id
        return line
