"""A resumed transcript as ACP updates (``session/load``): the user's words, the model's answers, and
each tool call with its result, in order. What axon added to the conversation for the model (its
``[axon: …]`` notes, attached files' text) is not replayed as the user's words.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from axon_cli.app.acp.updates import MAX_OUTPUT_CHARS, tool_kind, tool_locations
from axon_cli.kernel.loaders import json_value
from axon_cli.kernel.turn import UserTurn
from axon_cli.tools.registry import ToolRegistry

__all__ = ["history_updates"]


def _text(content: Any) -> str:
    """A message's text (a list of parts: its text parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json_value(raw)
        except ValueError:
            return raw
    return raw


def history_updates(messages: list[dict[str, Any]], registry: ToolRegistry, root: Path) -> Iterator[Any]:
    from acp import helpers
    from acp.schema import ToolCallLocation

    for message in messages:
        role = message.get("role")
        text = _text(message.get("content"))
        if role == "user":
            words = UserTurn.from_message(text).text
            if words and not words.startswith("[axon:"):
                yield helpers.update_user_message_text(words)
        elif role == "assistant":
            if text:
                yield helpers.update_agent_message_text(text)
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                name = str(function.get("name", ""))
                args = _arguments(function.get("arguments", ""))
                paths = tool_locations(registry, root, name, args)
                yield helpers.start_tool_call(str(call.get("id", "")), name, kind=tool_kind(registry, name),  # type: ignore[arg-type]
                                              status="pending", raw_input=args,
                                              locations=[ToolCallLocation(path=str(p)) for p in paths])
        elif role == "tool":
            failed = text.startswith(("Error", "Permission denied"))
            shown = text if len(text) <= MAX_OUTPUT_CHARS else text[:MAX_OUTPUT_CHARS] + "\n[…]"
            yield helpers.update_tool_call(str(message.get("tool_call_id", "")),
                                           status="failed" if failed else "completed",
                                           content=[helpers.tool_content(helpers.text_block(shown))])
