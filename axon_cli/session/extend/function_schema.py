"""A typed Python function as a tool's input: a pydantic model built from its signature.

Each parameter becomes a field: its type hint is the field's type (``str``, ``int``, ``float``,
``bool``, ``Literal[...]``, ``list[str]``, ``Optional[X]``, pydantic models, ``Annotated[X,
Field(...)]``), its default the field's default (a ``pydantic.Field(...)`` default is used as
is), and the docstring's entry for it the field's description. A parameter annotated with
``ToolContext`` is not part of the input: the tool's context is passed to it. The model forbids
unknown arguments, so a misspelt one is reported to the model by name.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, create_model

from axon_cli.session.extend.docstrings import parse_docstring
from axon_cli.tools.spec import ToolContext

__all__ = ["FunctionSchema", "SchemaError", "function_schema"]


class SchemaError(ValueError):
    """The function cannot be described as a tool (no docstring, a parameter without a type hint)."""


@dataclass
class FunctionSchema:
    name: str
    description: str
    input_model: type[BaseModel]
    context_param: str | None        # the parameter that receives the ToolContext, if any
    params: list[str]                # the input's parameters, in signature order


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except Exception as e:   # a name in an annotation that does not resolve
        raise SchemaError(f"its type hints cannot be resolved ({type(e).__name__}: {e})") from None


def _field(annotation: Any, default: Any, doc: str) -> tuple[Any, Any]:
    """``(type, default)`` for create_model; the docstring's text rides on ``Annotated`` so that a
    ``Field(...)`` default (its own description included) still wins."""
    from pydantic import Field

    if doc:
        annotation = Annotated[annotation, Field(description=doc)]
    return annotation, (... if default is inspect.Parameter.empty else default)


def function_schema(fn: Callable[..., Any], name: str | None = None,
                    description: str | None = None) -> FunctionSchema:
    """Describe ``fn`` as a tool; ``SchemaError`` says what is missing."""
    name = name or fn.__name__
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
        raise SchemaError(f"{name!r} is not a valid tool name (letters, digits, _ and -, at most 64)")
    doc = parse_docstring(inspect.getdoc(fn))
    text = (description or doc.description).strip()
    if not text:
        raise SchemaError("it has no docstring: the docstring is what tells the model what it does")
    hints = _hints(fn)
    fields: dict[str, Any] = {}
    context_param: str | None = None
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            raise SchemaError(f"parameter {param.name!r}: *args, **kwargs and positional-only "
                              "parameters cannot be tool arguments")
        if param.name not in hints:
            raise SchemaError(f"parameter {param.name!r} has no type hint")
        if hints[param.name] is ToolContext:
            context_param = param.name
            continue
        fields[param.name] = _field(hints[param.name], param.default, doc.params.get(param.name, ""))
    try:
        model = create_model(f"{name}_input", __config__=ConfigDict(extra="forbid"), **fields)
        model.model_json_schema()
    except Exception as e:
        raise SchemaError(f"its parameters cannot be turned into a JSON schema ({e})".split("\n")[0]) from None
    return FunctionSchema(name, text, model, context_param, list(fields))
