"""The call a constrained reply may be, narrowed to what the session has seen, so that what a small
model cannot get right by itself it cannot get wrong in the grammar either:

- ``edit_file`` only of a file read this session and unchanged since (read-before-edit and the
  staleness check, in the schema), one branch per file, its ``old_string`` one of that file's lines
  that occur exactly once in it (the unique-match rule, in the schema): an edit that names text the
  file does not hold cannot be emitted. A file the model has not read offers no edit; reading is
  the step before. Nor does a file the task moves, until it is moved (``unmoved``): renaming a
  file is no edit of its text.
- ``read_file`` only of a file that exists in the project, when the project is small enough to
  list (``MAX_LISTED``): a guessed path cannot be emitted.
- a tool whose very same call has just failed twice is left out of the next constrained reply
  (``avoid``): a repeat the loop would refuse anyway cannot be emitted, so the model must try
  another way instead of looping on a grammar that allows only the repeat.

Every offered value (a line, a path) is one whose JSON form needs no escape: printable ASCII without
``"`` or ``\\``. A server compiles the schema into a grammar, and llama-cpp-python (0.3.x) writes
an escaped value into an invalid grammar, which kills the server; a line that is not offered leaves
the file's edit to the other lines, a path that is not leaves read_file's path free, and a tool
whose own schema has such a choice (a user's tool may) is left out of the constrained reply.

The other tools keep their own schemas. Nothing here names a task's file, word or value: the
choices are read from the project and the session's file state.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from axon_cli.kernel.errors import AxonError
from axon_cli.kernel.loaders import read_bounded
from axon_cli.machinery.masking import mask
from axon_cli.tools.spec import ToolContext

__all__ = ["grounded_tools", "MAX_LISTED", "MAX_EDIT_FILES", "MAX_EDIT_BYTES", "MAX_LINE_CHARS"]

MAX_LISTED = 300          # project files offered as read_file's path; a larger project: any path
MAX_EDIT_FILES = 4        # the files read last that an edit may target
MAX_EDIT_BYTES = 24_000   # a larger file offers no line choices: its edit is left free
MAX_LINE_CHARS = 300      # a longer line is no choice


def grounded_tools(tools: list[dict[str, Any]], ctx: ToolContext, avoid: set[str],
                   unmoved: set[Path] | None = None) -> list[dict[str, Any]]:
    """``tools`` (OpenAI tool dicts) as a constrained reply may call them: narrowed as above, a tool
    in ``avoid`` left out (unless nothing would be left), no edit of a file in ``unmoved``."""
    safe = [t for t in tools if _literal_choices(t.get("function", t).get("parameters"))]
    kept = [t for t in safe if _name(t) not in avoid] or safe
    out: list[dict[str, Any]] = []
    for tool in kept:
        name = _name(tool)
        if name == "edit_file":
            out.extend(_edit_branches(tool, ctx, unmoved or set()))
        elif name == "read_file":
            out.append(_read_branch(tool, ctx))
        else:
            out.append(tool)
    return out or kept


def _literal(value: str) -> bool:
    """Whether ``value`` is written in JSON as it is (no escape a grammar converter could get wrong)."""
    return json.dumps(value)[1:-1] == value


def _literal_choices(schema: Any) -> bool:
    """Whether every ``enum``/``const`` string in ``schema`` (a tool's parameters: a user's or a
    plugin's tool may have any) is a value JSON writes as it is."""
    if isinstance(schema, list):
        return all(_literal_choices(s) for s in schema)
    if not isinstance(schema, dict):
        return True
    choices = [*(schema.get("enum") or []), *([schema["const"]] if "const" in schema else [])]
    if any(isinstance(c, str) and not _literal(c) for c in choices):
        return False
    return all(_literal_choices(v) for k, v in schema.items() if k not in ("enum", "const"))


def _name(tool: dict[str, Any]) -> str:
    return str(tool.get("function", tool).get("name", ""))


def _with_arguments(tool: dict[str, Any], properties: dict[str, Any], drop: tuple[str, ...] = ()) -> dict[str, Any]:
    """A copy of ``tool`` whose parameters have ``properties`` replaced and ``drop`` removed."""
    narrowed = copy.deepcopy(tool)
    params = narrowed.get("function", narrowed).setdefault("parameters", {"type": "object", "properties": {}})
    props = params.setdefault("properties", {})
    for key in drop:
        props.pop(key, None)
    props.update(properties)
    params["required"] = [k for k in params.get("required", []) if k in props]
    return narrowed


def _read_branch(tool: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    from axon_cli.tools.builtin.search.walk import walk_files  # the walk: once a reply is constrained

    root = ctx.project_root
    listed: list[str] = []
    for found in walk_files(root):
        listed.append(Path(os.path.relpath(found, root)).as_posix())
        if len(listed) > MAX_LISTED or not _literal(listed[-1]):
            return tool
    if not listed:
        return tool
    return _with_arguments(tool, {"path": {"type": "string", "enum": listed}})


def _edit_branches(tool: dict[str, Any], ctx: ToolContext, unmoved: set[Path]) -> list[dict[str, Any]]:
    branches: list[dict[str, Any]] = []
    for key in reversed(ctx.file_state.paths()):
        if len(branches) >= MAX_EDIT_FILES:
            break
        lines = [] if Path(key) in unmoved else _unique_lines(Path(key), ctx)
        rel = ctx.relative(Path(key))
        if lines and _literal(rel):
            branches.append(_with_arguments(tool, {"path": {"type": "string", "const": rel},
                                                   "old_string": {"type": "string", "enum": lines}},
                                            drop=("replace_all",)))
    return branches


def _unique_lines(path: Path, ctx: ToolContext) -> list[str]:
    """The lines of ``path`` an edit may start from: each occurring once in the file, as the model
    saw it (the bytes still hash to what was read, no secret masked on the line); none when the file
    is outside the project, changed since it was read, or large."""
    record = ctx.file_state.get(path)
    try:
        inside = path.resolve().is_relative_to(ctx.project_root.resolve())
        st = path.stat()
    except (OSError, RuntimeError):
        return []
    if record is None or not inside or st.st_size > MAX_EDIT_BYTES:
        return []
    if record.mtime_ns != st.st_mtime_ns or record.size != st.st_size:
        return []
    try:
        data = read_bounded(path, MAX_EDIT_BYTES)
    except AxonError:
        return []
    if not record.sha256 or hashlib.sha256(data).hexdigest() != record.sha256 or b"\0" in data:
        return []
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return []
    seen: dict[str, None] = {}
    for raw in text.split("\n"):
        line = raw.removesuffix("\r")
        if line.strip() and len(line) <= MAX_LINE_CHARS and line not in seen and text.count(line) == 1 \
                and _literal(line) and mask(line) == line:
            seen[line] = None
    return list(seen)
