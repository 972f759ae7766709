"""Reading files that anyone may have written (a cloned repository's ``.axon/``, ``.mcp.json``, a
user's state): TOML and JSON, bounded in size and nesting.

Every way such a file can be unusable — unreadable, larger than the loader's cap, not UTF-8,
malformed, nested deeper than ``MAX_DEPTH`` — is one ``ConfigError`` whose message is one line
naming the file; nothing else escapes (no ``UnicodeDecodeError``, ``RecursionError`` or the
integer-digits ``ValueError``). A leading UTF-8 byte order mark is ignored. What a loader returns
is nested at most ``MAX_DEPTH`` levels, so code walking it recursively is safe.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from axon_cli.kernel.errors import ConfigError

__all__ = ["BadFile", "MAX_DEPTH", "MAX_CONFIG_BYTES", "read_bounded", "decode_utf8", "check_depth", "load_toml",
           "parse_toml", "load_json", "parse_json", "json_value", "json_prefix", "one_line"]

MAX_DEPTH = 64                      # tables/arrays/objects inside each other
MAX_CONFIG_BYTES = 4 * 1024 * 1024  # a settings file larger than this is not one
_BOM = "\ufeff"


class BadFile(ConfigError):
    """A file a loader could not use: ``kind`` is read | size | encoding | syntax | depth, ``reason``
    the message without the file's name (callers that word their own line use these)."""

    def __init__(self, where: str | Path, kind: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where, self.kind, self.reason = str(where), kind, reason


def one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line, at most ``limit`` characters (for error messages)."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def read_bounded(path: Path, limit: int = MAX_CONFIG_BYTES) -> bytes:
    """The file's bytes; a ConfigError when it cannot be read or holds more than ``limit`` bytes."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as e:
        raise BadFile(path, "read", f"cannot read: {e.strerror or e}") from None
    if len(data) > limit:
        raise BadFile(path, "size", f"larger than {limit // 1024} KiB; not read")
    return data


def decode_utf8(data: bytes, where: str | Path) -> str:
    """``data`` as UTF-8 text without a leading byte order mark; a ConfigError naming the first bad byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadFile(where, "encoding", f"not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})") from None
    return text[1:] if text.startswith(_BOM) else text


def check_depth(value: Any, where: str | Path, limit: int = MAX_DEPTH) -> Any:
    """``value`` itself when no list or dict in it is nested deeper than ``limit``; else a ConfigError.
    Iterative: it never recurses, however deep ``value`` is."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        if depth > limit:
            raise BadFile(where, "depth", f"nested deeper than {limit} levels")
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list, tuple)))
    return value


def _too_deep(where: str | Path) -> BadFile:
    return BadFile(where, "depth", f"nested deeper than {MAX_DEPTH} levels")


def parse_toml(text: str, where: str | Path) -> dict[str, Any]:
    """TOML text → its table (nesting checked); a ConfigError naming ``where`` for anything wrong."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        data = tomllib.loads(text[1:] if text.startswith(_BOM) else text)
    except tomllib.TOMLDecodeError as e:
        raise BadFile(where, "syntax", f"invalid TOML: {one_line(str(e))}") from None
    except RecursionError:
        raise _too_deep(where) from None
    except ValueError as e:           # an integer of more digits than Python converts
        raise BadFile(where, "syntax", f"invalid TOML: {one_line(str(e))}") from None
    return check_depth(data, where)


def load_toml(path: Path, limit: int = MAX_CONFIG_BYTES) -> dict[str, Any]:
    """A TOML file's table; every problem is one ConfigError naming the file."""
    return parse_toml(decode_utf8(read_bounded(path, limit), path), path)


def json_value(text: str | bytes) -> Any:
    """``json.loads`` for JSON that arrives rather than sits in a file (a model's tool-call arguments,
    a hook's or a language server's reply): nested at most ``MAX_DEPTH``; anything wrong — invalid,
    too deep, not UTF-8 — is a ``ValueError`` of one line (a ``json.JSONDecodeError`` when the text
    is not JSON or too deep), never a ``RecursionError``."""
    value, _ = _decoded(text, None)
    return value


def json_prefix(text: str, start: int = 0) -> tuple[Any, int]:
    """The JSON value starting at ``start`` and where it ends (``JSONDecoder.raw_decode``), checked like
    ``json_value``."""
    return _decoded(text, start)


def _decoded(text: str | bytes, start: int | None) -> tuple[Any, int]:
    import json

    try:
        if start is None:
            value, end = json.loads(text), len(text)
        else:
            value, end = json.JSONDecoder().raw_decode(str(text), start)
    except RecursionError:
        raise _too_deep_at(text) from None
    except UnicodeDecodeError as e:
        raise ValueError(f"not UTF-8 text (offset {e.start})") from None
    try:
        check_depth(value, "JSON")
    except BadFile:
        raise _too_deep_at(text) from None
    return value, end


def _too_deep_at(text: str | bytes) -> ValueError:
    """A ``json.JSONDecodeError`` at the first bracket nested deeper than ``MAX_DEPTH`` (strings skipped)."""
    import json

    doc = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    depth, quoted, escaped = 0, False, False
    for pos, char in enumerate(doc):
        if quoted:
            quoted, escaped = (escaped or char != '"'), (not escaped and char == "\\")
        elif char == '"':
            quoted = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return json.JSONDecodeError(f"nested deeper than {MAX_DEPTH} levels", doc, pos)
        elif char in "]}":
            depth -= 1
    return json.JSONDecodeError(f"nested deeper than {MAX_DEPTH} levels", doc, 0)


def parse_json(text: str, where: str | Path) -> Any:
    """JSON text → its value (nesting checked); a ConfigError naming ``where`` for anything wrong."""
    try:
        return json_value(text[1:] if text.startswith(_BOM) else text)
    except ValueError as e:
        if str(e).startswith("nested deeper"):
            raise _too_deep(where) from None
        raise BadFile(where, "syntax", f"invalid JSON: {one_line(str(e))}") from None


def load_json(path: Path, limit: int = MAX_CONFIG_BYTES) -> Any:
    """A JSON file's value; every problem is one ConfigError naming the file."""
    return parse_json(decode_utf8(read_bounded(path, limit), path), path)
