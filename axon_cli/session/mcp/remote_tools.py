"""MCP tools as axon ToolSpecs: ``mcp__SERVER__TOOL`` (``names.py``), deferred, with the server's own
JSON schema.

The input model accepts any object and checks it against the server's ``inputSchema`` (with the
``jsonschema`` package when it is installed), so a malformed call is answered before it is even
put to the permission check. What the model sees is the server's schema, unchanged.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator
from pydantic_core import PydanticCustomError

from axon_cli.policy.tool_names import tool_name
from axon_cli.session.mcp.convert import RemoteTool
from axon_cli.tools.spec import ToolContext, ToolOutput, ToolSpec

__all__ = ["tool_name", "make_input_model", "make_spec", "McpArguments", "CallFn"]

CallFn = Callable[[str, str, dict[str, Any], float, ToolContext], ToolOutput]
"""(server, tool, arguments, timeout, ctx) -> ToolOutput: how a spec's handler reaches the server."""


class McpArguments(BaseModel):
    """Any JSON object (the server's schema decides); subclasses check it against that schema."""

    model_config = ConfigDict(extra="allow")


def _validator(schema: dict[str, Any]) -> Any:
    """A jsonschema validator for ``schema``, or None (package missing, or the schema is invalid)."""
    try:
        jsonschema = importlib.import_module("jsonschema")
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        return cls(schema)
    except Exception:
        return None


def _problems(validator: Any, data: dict[str, Any]) -> list[str]:
    out = []
    for err in sorted(validator.iter_errors(data), key=lambda e: list(e.path))[:8]:
        where = ".".join(str(p) for p in err.path)
        out.append(f"{where}: {err.message}" if where else str(err.message))
    return out


def make_input_model(name: str, schema: dict[str, Any]) -> type[McpArguments]:
    validator = _validator(schema)

    class Arguments(McpArguments):
        @model_validator(mode="before")
        @classmethod
        def _check(cls, data: Any) -> Any:
            if validator is not None and isinstance(data, dict):
                problems = _problems(validator, data)
                if problems:
                    raise PydanticCustomError("mcp_schema", "{details}", {"details": "; ".join(problems)})
            return data

    Arguments.__name__ = Arguments.__qualname__ = re.sub(r"\W", "_", name) + "_arguments"
    return Arguments


def _schema(remote: RemoteTool) -> dict[str, Any]:
    schema = dict(remote.input_schema)
    schema.setdefault("type", "object")
    if schema.get("type") == "object":
        schema.setdefault("properties", {})
    return schema


def _const(value: bool) -> Callable[[Any], bool]:
    return lambda _input: value


def make_spec(server: str, remote: RemoteTool, call: CallFn, timeout: float) -> ToolSpec[Any]:
    name = tool_name(server, remote.name)
    description = remote.description.strip() or remote.title or f"The {remote.name} tool of MCP server {server}."
    first_line = description.splitlines()[0][:150]

    def handler(tool_input: McpArguments, ctx: ToolContext) -> ToolOutput:
        return call(server, remote.name, tool_input.model_dump(), timeout, ctx)

    return ToolSpec(
        name=name, description=description, input_model=make_input_model(name, remote.input_schema),
        handler=handler, category="other", is_read_only=_const(remote.read_only),
        is_destructive=_const(remote.destructive),
        deferred=True, timeout=timeout + 10.0, short_description=f"{first_line} (MCP {server})",
        source=f"mcp:{server}", schema_override=_schema(remote))
