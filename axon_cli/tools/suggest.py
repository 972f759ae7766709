"""What to tell a model that called a tool that does not exist: the closest tool names, and the one
tool whose parameters its arguments fit exactly (``{"name": "x.cfg", "arguments": {"path": "x.cfg"}}``
fits ``read_file``). Used for calls written as text; pure, no I/O."""

from __future__ import annotations

import difflib
from typing import Any

from axon_cli.tools.spec import ToolCatalog, ToolSpec

__all__ = ["closest_names", "fitting_tool", "suggestion", "unknown_tool_message"]


def closest_names(name: str, catalog: ToolCatalog, n: int = 3) -> list[str]:
    """Up to ``n`` tool names spelled like ``name`` (active ones first), best first."""
    active = [s.name for s in catalog.all() if catalog.is_active(s.name)]
    others = [s.name for s in catalog.all() if not catalog.is_active(s.name)]
    found = difflib.get_close_matches(name, active, n=n, cutoff=0.5)
    found += difflib.get_close_matches(name, others, n=n - len(found), cutoff=0.6) if len(found) < n else []
    return found


def _fits(spec: ToolSpec[Any], args: dict[str, Any]) -> bool:
    schema = spec.json_schema()
    props = set((schema.get("properties") or {}).keys())
    required = set(schema.get("required") or [])
    if not args or not set(args) <= props or not required <= set(args):
        return False
    try:
        spec.input_model.model_validate(args)
    except Exception:
        return False
    return True


def fitting_tool(args: dict[str, Any], catalog: ToolCatalog) -> str | None:
    """The one active tool these arguments fit (every key a parameter, every required one given,
    valid), preferring a tool whose required parameters are exactly the keys; None if not exactly one."""
    fits = [s for s in catalog.all() if catalog.is_active(s.name) and _fits(s, args)]
    if len(fits) > 1:
        fits = [s for s in fits if set(s.json_schema().get("required") or []) == set(args)]
    return fits[0].name if len(fits) == 1 else None


def suggestion(name: str, args: Any, catalog: ToolCatalog) -> str:
    """" Closest tool names: …. Your arguments fit …." (either part only when there is one), or ""."""
    text = ""
    close = closest_names(name, catalog)
    if close:
        text += f" Closest tool names: {', '.join(close)}."
    fit = fitting_tool(args, catalog) if isinstance(args, dict) else None
    if fit:
        text += f' Your arguments fit {fit}: call it with "name": "{fit}".'
    return text


def unknown_tool_message(name: str, args: Any, catalog: ToolCatalog) -> str:
    """The corrective error for a call of a tool that does not exist."""
    active = ", ".join(s.name for s in catalog.all() if catalog.is_active(s.name))
    return f"Error: unknown tool {name!r}; nothing was run.{suggestion(name, args, catalog)} Available tools: {active}."
