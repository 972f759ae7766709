"""Validation errors of tool arguments, as the model reads them: one line per bad field with what
was expected (or what was sent), and arguments the tool does not have."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

__all__ = ["format_validation_error"]

_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number", list: "array",
               dict: "object", type(None): "null"}


def _schema_at(schema: dict[str, Any] | None, loc: tuple[Any, ...]) -> dict[str, Any]:
    node: Any = schema or {}
    for part in loc:
        node = (node.get("items") if isinstance(part, int) else node.get("properties", {}).get(part)) or {}
    return node if isinstance(node, dict) else {}


def _expected(e: Any, schema: dict[str, Any] | None) -> str:
    """What was expected of a missing field, or what was sent instead of a valid value."""
    if not e["loc"] or e["type"] in ("value_error", "assertion_error"):   # its own message says it all
        return ""
    if e["type"] == "missing":
        node = _schema_at(schema, tuple(e["loc"]))
        kind = "one of " + ", ".join(map(repr, node["enum"])) if "enum" in node else node.get("type", "")
        return f" (expected {kind})" if kind else ""
    given = e.get("input")
    shown = repr(given) if len(repr(given)) <= 40 else repr(given)[:37] + "..."
    return f" (got {_JSON_TYPES.get(type(given), type(given).__name__)} {shown})"


def format_validation_error(tool: str, err: ValidationError, schema: dict[str, Any] | None = None,
                            args: dict[str, Any] | None = None) -> str:
    """One line per bad field with what was expected or got; unexpected argument names too."""
    lines = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"]) or "(arguments)"
        lines.append(f"  - {loc}: {e['msg']}{_expected(e, schema)}")
    if schema is not None and args and not schema.get("additionalProperties"):
        unknown = [k for k in args if k not in schema.get("properties", {})]
        if unknown:
            lines.append(f"  - unexpected argument{'s' if len(unknown) != 1 else ''} "
                         f"{', '.join(map(repr, unknown))}; the parameters are: "
                         f"{', '.join(schema.get('properties', {}))}")
    n = len(err.errors())
    return (f"Error: {n} validation error{'s' if n != 1 else ''} in the arguments of {tool}:\n"
            + "\n".join(lines) + "\nFix the arguments and try again.")
