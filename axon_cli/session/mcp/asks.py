"""What axon answers when a server asks the client: ``roots/list`` (the project folder as a
``file://`` root) and ``elicitation/create`` (asked through the approver: the REPL asks the user,
``axon run`` declines). Runs on the MCP event loop; a blocking ask goes to a worker thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from axon_cli.kernel.events import InputAnswer, InputField, InputRequest

__all__ = ["Asker", "roots_callback", "elicitation_callback", "request_of", "elicit_result"]

Asker = Callable[[InputRequest], InputAnswer]
_TRUE = {"y", "yes", "true", "1", "on"}
_FALSE = {"n", "no", "false", "0", "off"}


def roots_callback(roots: list[Path]) -> Any:
    async def list_roots(context: Any) -> Any:
        import mcp.types as t

        return t.ListRootsResult(roots=[t.Root.model_validate({"uri": p.resolve().as_uri(), "name": p.name or str(p)})
                                        for p in roots])
    return list_roots


def request_of(server: str, params: Any) -> InputRequest:
    """An elicitation's params as an ``InputRequest`` (form fields from its schema, or its URL)."""
    schema = getattr(params, "requested_schema", None) or {}
    required = set(schema.get("required") or [])
    fields = []
    for name, prop in (schema.get("properties") or {}).items():
        prop = prop if isinstance(prop, dict) else {}
        kind = str(prop.get("type")) if prop.get("type") in ("number", "integer", "boolean") else "string"
        choices = [str(c) for c in prop.get("enum") or []]
        fields.append(InputField(name=str(name), title=str(prop.get("title") or ""),
                                 description=str(prop.get("description") or ""), kind=kind,  # type: ignore[arg-type]
                                 required=name in required, choices=choices))
    return InputRequest(source=f"MCP server '{server}'", message=str(getattr(params, "message", "") or ""),
                        fields=fields, url=str(getattr(params, "url", "") or ""))


def _value(field: InputField, text: str) -> Any:
    if field.kind == "boolean":
        low = text.strip().lower()
        if low not in _TRUE | _FALSE:
            raise ValueError(f"{field.name}: expected yes or no")
        return low in _TRUE
    if field.kind == "integer":
        return int(text)
    if field.kind == "number":
        return float(text)
    if field.choices and text not in field.choices:
        raise ValueError(f"{field.name}: expected one of {', '.join(field.choices)}")
    return text


def elicit_result(request: InputRequest, answer: InputAnswer) -> Any:
    """The ``ElicitResult`` for an answer: typed values on accept; a value that does not fit its
    field, or a required one missing, cancels."""
    import mcp.types as t

    if answer.action != "accept":
        return t.ElicitResult(action=answer.action)
    content: dict[str, Any] = {}
    try:
        for field in request.fields:
            text = answer.values.get(field.name)
            if text is None or text == "":
                if field.required:
                    raise ValueError(f"{field.name} is required")
                continue
            content[field.name] = _value(field, text)
    except ValueError:
        return t.ElicitResult(action="cancel")
    return t.ElicitResult(action="accept", content=content if request.fields else None)


def elicitation_callback(server: str, asker_now: Callable[[], Asker | None]) -> Any:
    """``asker_now`` is read when an elicitation arrives, not when the server connects: servers start
    connecting before the session binds its asker, and an early connection must not decline forever."""
    async def elicit(context: Any, params: Any) -> Any:
        request = request_of(server, params)
        asker = asker_now()
        if asker is None:
            answer = InputAnswer(action="decline", message="no one to ask")
        else:
            answer = await asyncio.get_running_loop().run_in_executor(None, asker, request)
        return elicit_result(request, answer)
    return elicit
