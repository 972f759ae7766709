"""JSON schema for tool inputs, generated from pydantic models (never written by hand)."""

from __future__ import annotations

import copy
import functools
from typing import Any

from pydantic import BaseModel

__all__ = ["model_schema"]


def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema, trimmed of noise the LLM does not need (titles), refs inlined.

    Generated once per model (every request and every token estimate sends the same tools); each
    caller gets its own copy to change as it likes."""
    return copy.deepcopy(_cleaned_schema(model))


@functools.lru_cache(maxsize=256)
def _cleaned_schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})
    return dict(_clean(schema, defs))


def _clean(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            return _clean(dict(defs.get(name, {})), defs)
        out = {}
        for key, value in node.items():
            if key == "title":
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {k: _clean(v, defs) for k, v in value.items()}
            else:
                out[key] = _clean(value, defs)
        # Optional[X] shows as anyOf[X, null]; simplify to X (the field is optional anyway).
        any_of = out.get("anyOf")
        if isinstance(any_of, list) and len(any_of) == 2 and {"type": "null"} in any_of:
            other = next(s for s in any_of if s != {"type": "null"})
            out.pop("anyOf")
            if out.get("default", "x") is None:
                out.pop("default")
            out = {**other, **out}
        return out
    if isinstance(node, list):
        return [_clean(v, defs) for v in node]
    return node
