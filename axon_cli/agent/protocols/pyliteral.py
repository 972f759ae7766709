"""JSON as small models write it when they think in Python: ``'single quotes'``, ``\"\"\"triple
quotes\"\"\"`` around a file's content, ``r"raw strings"``, ``True``/``None``.

``python_literal`` reads such a value without evaluating anything: the text is parsed with
``ast`` and only literals are taken (strings, numbers, booleans, null in either spelling, lists,
tuples, and dicts with string keys); anything else (a name, a call, an operator) makes it None.
"""

from __future__ import annotations

import ast
from typing import Any

__all__ = ["python_literal"]

_JSON_NAMES = {"true": True, "false": False, "null": None}


def python_literal(text: str) -> Any | None:
    """The value of ``text`` read as a Python (or JSON) literal, or None when it is not one.
    A triple-quoted string's single leading newline is dropped (it only opens the block)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
        return _value(tree.body)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _value(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool, type(None))):
        return node.value[1:] if isinstance(node.value, str) and node.value.startswith("\n") else node.value
    if isinstance(node, ast.Name) and node.id in _JSON_NAMES:
        return _JSON_NAMES[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool):
        return -node.operand.value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[str, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            name = _value(key) if key is not None else None
            if not isinstance(name, str):
                raise ValueError("a dict key that is not a string")
            out[name] = _value(value)
        return out
    raise ValueError(f"not a literal: {type(node).__name__}")
