"""Lines of a transcript checked before use: a session file may come from anyone (a repository can
ship ``.axon/sessions/``), so a line that is not JSON, is nested too deeply or is not a chat message
of the shape axon handles is skipped rather than crashed on."""

from __future__ import annotations

from typing import Any

from axon_cli.kernel.loaders import json_value

__all__ = ["line_object", "valid_message", "int_or_zero"]


def line_object(raw: str) -> dict[str, Any] | None:
    """One line's JSON object, or None (not JSON, not an object, nested deeper than ``MAX_DEPTH``)."""
    try:
        obj = json_value(raw)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def _str_or_none(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _valid_call(call: Any) -> bool:
    if not isinstance(call, dict) or not isinstance(call.get("id"), str):
        return False
    fn = call.get("function")
    return isinstance(fn, dict) and isinstance(fn.get("name"), str) and _str_or_none(fn.get("arguments"))


def valid_message(obj: dict[str, Any]) -> bool:
    """Whether a line is a chat message of the shape the rest of axon handles (a role, text or
    content parts, well-formed tool calls): anything else in a transcript is skipped, not crashed on."""
    role, content = obj.get("role"), obj.get("content")
    if role not in ("system", "user", "assistant", "tool"):
        return False
    if not (_str_or_none(content) or (isinstance(content, list)
                                      and all(isinstance(p, dict) and isinstance(p.get("type"), str) for p in content))):
        return False
    calls = obj.get("tool_calls")
    if calls is not None and not (role == "assistant" and isinstance(calls, list) and all(map(_valid_call, calls))):
        return False
    return role != "tool" or isinstance(obj.get("tool_call_id"), str)


def int_or_zero(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return 0
