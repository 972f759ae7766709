"""axon's events as ACP ``session/update`` notifications (the same event stream chat and run read).

Model text → ``agent_message_chunk`` (reasoning → ``agent_thought_chunk``); a tool call's start →
``tool_call`` (kind from the tool's facts, title, locations), ``in_progress`` once allowed; its end →
``tool_call_update``
(completed or failed, the output as text, and for edit_file/write_file a ``diff`` block with the
file's text before and after); todo_write → ``plan``; notices and errors → thought / message text.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from axon_cli.app.acp.fs import call_on_loop
from axon_cli.kernel.events import (
    AssistantDelta,
    Error,
    Event,
    Notice,
    PermissionDecision,
    TodoUpdated,
    ToolCallBegin,
    ToolCallEnd,
)
from axon_cli.tools.registry import ToolRegistry

__all__ = ["AcpUpdates", "tool_kind", "tool_locations", "plan_entries", "EDIT_TOOLS", "MAX_OUTPUT_CHARS"]

log = logging.getLogger("axon.acp")
EDIT_TOOLS = frozenset({"edit_file", "write_file"})
MAX_OUTPUT_CHARS = 20_000
_PLAN_STATUS = {"done": "completed", "in_progress": "in_progress", "pending": "pending"}


def tool_kind(registry: ToolRegistry, name: str) -> str:
    """ACP's kind of a tool call, from the tool's category and name."""
    spec = registry.get(name)
    category = spec.category if spec is not None else "other"
    if category == "edit":
        return "edit"
    if category == "shell":
        return "execute"
    if name.startswith("web_"):
        return "fetch"
    if any(word in name for word in ("search", "grep", "glob", "list")):
        return "search"
    if category == "read":
        return "read"
    return "think" if name == "todo_write" else "other"


def tool_locations(registry: ToolRegistry, root: Path, name: str, arguments: Any) -> list[Path]:
    """The files a call names (absolute), from the tool's own ``paths`` fact."""
    spec = registry.get(name)
    if spec is None or not isinstance(arguments, dict):
        return []
    try:
        paths = spec.paths(spec.input_model.model_validate(arguments))
    except Exception:
        return []
    return [p if p.is_absolute() else root / p for p in (Path(str(x)).expanduser() for x in paths)]


def plan_entries(todos: list[dict[str, Any]]) -> list[Any]:
    from acp.schema import PlanEntry

    return [PlanEntry(content=str(t.get("content", "")), priority="medium",
                      status=_PLAN_STATUS.get(str(t.get("status")), "pending"))  # type: ignore[arg-type]
            for t in todos]


class AcpUpdates:
    """An event sink sending each event as a ``session/update`` (waits until it is written, so every
    update of a turn goes out before the turn's answer). ``read_text`` reads a file as the tools see
    it (the editor's buffer or the disk), for the texts of a diff."""

    def __init__(self, conn: Any, loop: asyncio.AbstractEventLoop, session_id: str, registry: ToolRegistry,
                 root: Path, read_text: Callable[[Path], str | None]) -> None:
        self.conn, self.loop, self.session_id = conn, loop, session_id
        self.registry, self.root, self.read_text = registry, root, read_text
        self._before: dict[str, tuple[Path, str]] = {}     # edit calls: the file's text before

    def send(self, update: Any) -> None:
        call_on_loop(self.loop, self.conn.session_update(session_id=self.session_id, update=update))

    def __call__(self, event: Event) -> None:
        update = self._update(event)
        if update is not None:
            self.send(update)

    def _update(self, event: Event) -> Any:
        from acp import helpers

        if isinstance(event, AssistantDelta):
            if event.kind == "reasoning":
                return helpers.update_agent_thought_text(event.text)
            return helpers.update_agent_message_text(event.text)
        if isinstance(event, ToolCallBegin):
            return self._begin(event)
        if isinstance(event, ToolCallEnd):
            return self._end(event)
        if isinstance(event, PermissionDecision) and event.final == "allow":
            return helpers.update_tool_call(event.call_id, status="in_progress")
        if isinstance(event, TodoUpdated):
            return helpers.update_plan(plan_entries(event.todos))
        if isinstance(event, Notice):
            return helpers.update_agent_thought_text(f"[axon: {event.message}]\n")
        if isinstance(event, Error):
            return helpers.update_agent_message_text(f"\n[axon: error: {event.message}]\n")
        return None

    def _begin(self, event: ToolCallBegin) -> Any:
        from acp import helpers
        from acp.schema import ToolCallLocation

        paths = tool_locations(self.registry, self.root, event.name, event.arguments)
        if event.name in EDIT_TOOLS and paths:
            self._before[event.call_id] = (paths[0], self._text(paths[0]))
        title = f"{event.name}: {event.summary}" if event.summary else event.name
        return helpers.start_tool_call(event.call_id, title, kind=tool_kind(self.registry, event.name),  # type: ignore[arg-type]
                                       status="pending", locations=[ToolCallLocation(path=str(p)) for p in paths],
                                       raw_input=event.arguments)

    def _end(self, event: ToolCallEnd) -> Any:
        from acp import helpers

        output = event.output if len(event.output) <= MAX_OUTPUT_CHARS else event.output[:MAX_OUTPUT_CHARS] + "\n[…]"
        content: list[Any] = [helpers.tool_content(helpers.text_block(output))]
        before = self._before.pop(event.call_id, None)
        if before is not None and event.ok:
            path, old = before
            content.append(helpers.tool_diff_content(str(path), self._text(path), old or None))
        return helpers.update_tool_call(event.call_id, status="completed" if event.ok else "failed",
                                        content=content)

    def _text(self, path: Path) -> str:
        try:
            text = self.read_text(path)
            if text is None:
                text = path.read_text("utf-8", "replace") if path.is_file() else ""
        except OSError:
            text = ""
        return text
