"""``@tool``: a typed Python function as an axon tool (``from axon_cli import tool``).

The decorator only records its options on the function (importing a tool file stays cheap and
side-effect free); the loader turns each decorated function into a ``ToolSpec`` that goes through
the same dispatch as a built-in: validation, permissions, masking, truncation and audit.

``risk`` says what the tool does, for the permission policy: ``read`` runs without asking (also in
read-only mode), ``edit`` asks like a file edit (allowed in accept-edits), ``destructive`` asks in
every mode but yolo. A tool that does not say is treated as ``destructive``. In a ``read`` or
``edit`` tool, a parameter named ``path`` (or ``paths``) names the file(s) it touches: file rules,
paths outside the project and sensitive paths then count as for ``read_file``/``edit_file``, and
an ``edit`` tool's files are restored by ``/undo``.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from axon_cli.session.extend.function_schema import function_schema
from axon_cli.tools.spec import Cancelled, ToolContext, ToolError, ToolOutput, ToolSpec

__all__ = ["tool", "ToolOptions", "RISKS", "spec_for", "options_of"]

Risk = Literal["read", "edit", "destructive"]
RISKS: tuple[str, ...] = ("read", "edit", "destructive")
F = TypeVar("F", bound=Callable[..., Any])
_ATTR = "__axon_tool__"
_CATEGORY = {"read": "read", "edit": "edit", "destructive": "other"}


@dataclass(frozen=True)
class ToolOptions:
    risk: Risk = "destructive"
    timeout: float | None = 30.0
    retries: int = 0
    deferred: bool = False
    name: str | None = None
    description: str | None = None


def tool(fn: F | None = None, *, risk: Risk = "destructive", timeout: float | None = 30.0, retries: int = 0,
         deferred: bool = False, name: str | None = None, description: str | None = None) -> Any:
    """Mark ``fn`` as an axon tool; usable bare (``@tool``) or with options (``@tool(risk="read")``)."""
    if risk not in RISKS:
        raise ValueError(f"@tool: risk must be one of {', '.join(RISKS)} (got {risk!r})")
    if timeout is not None and timeout <= 0:
        raise ValueError(f"@tool: timeout must be positive seconds or None (got {timeout!r})")
    if not isinstance(retries, int) or retries < 0:
        raise ValueError(f"@tool: retries must be a whole number >= 0 (got {retries!r})")
    options = ToolOptions(risk, timeout, retries, deferred, name, description)

    def mark(f: F) -> F:
        if not callable(f):
            raise TypeError("@tool decorates a function")
        setattr(f, _ATTR, options)
        return f

    return mark(fn) if fn is not None else mark


def options_of(obj: Any) -> ToolOptions | None:
    value = getattr(obj, _ATTR, None) if inspect.isfunction(obj) else None
    return value if isinstance(value, ToolOptions) else None


def _as_output(value: Any) -> ToolOutput | str:
    if isinstance(value, (ToolOutput, str)):
        return value
    if value is None:
        return "(no output)"
    try:
        return json.dumps(value, ensure_ascii=False, indent=1, default=str)
    except (TypeError, ValueError):
        return str(value)


def _paths(params: list[str]) -> Callable[[Any], list[str]]:
    def paths(tool_input: Any) -> list[str]:
        found: list[str] = []
        for name in ("path", "paths"):
            value = getattr(tool_input, name, None) if name in params else None
            if isinstance(value, str):
                found.append(value)
            elif isinstance(value, list):
                found.extend(str(v) for v in value)
        return found
    return paths


def spec_for(fn: Callable[..., Any], options: ToolOptions, source: str) -> ToolSpec[Any]:
    """The ToolSpec of a decorated function (``SchemaError`` when it cannot be one)."""
    schema = function_schema(fn, options.name, options.description)

    def call(tool_input: BaseModel, ctx: ToolContext) -> Any:
        kwargs = {name: getattr(tool_input, name) for name in schema.params}
        if schema.context_param:
            kwargs[schema.context_param] = ctx
        result = fn(**kwargs)
        return asyncio.run(result) if inspect.iscoroutine(result) else result

    def handler(tool_input: BaseModel, ctx: ToolContext) -> ToolOutput | str:
        failures = 0
        while True:
            ctx.check_cancelled()
            try:
                return _as_output(call(tool_input, ctx))
            except (Cancelled, ToolError):
                raise
            except Exception:          # retried; the last one reaches the model as "Error: …"
                failures += 1
                if failures > options.retries:
                    raise

    read_only = options.risk == "read"
    first = schema.description.strip().splitlines()[0][:150]
    return ToolSpec(
        name=schema.name, description=schema.description, input_model=schema.input_model, handler=handler,
        category=_CATEGORY[options.risk],  # type: ignore[arg-type]
        is_read_only=lambda _input: read_only, is_destructive=lambda _input: options.risk == "destructive",
        paths=_paths(schema.params), deferred=options.deferred, timeout=options.timeout,
        short_description=first, source=f"python:{source}")
