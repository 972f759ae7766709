"""What a write_file or edit_file call would do (``Plan``), worked out before anything is written.

The file's text as it is (an editor's unsaved buffer first), the staleness check, the match of
old_string (:mod:`axon_cli.tools.builtin.files.matching`) and the replacement in the file's own
style; the messages that send a misused old_string back the right way. The preview shows a plan's
diff; ``tool`` applies it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from axon_cli.tools.builtin.files.whole_file import lossy_rewrite, no_match_hint, whole_file_edits
from axon_cli.tools.spec import ToolContext, ToolError

if TYPE_CHECKING:
    from axon_cli.tools.builtin.files.file_tools import EditFileInput, WriteFileInput
    from axon_cli.tools.builtin.files.fileio import TextFile

# The machinery (buffers, fileio, matching, reading) is imported when a plan is made.

__all__ = ["Plan", "plan_edit", "plan_write", "empty_old_string_message", "file_name_message"]


@dataclass
class Plan:
    """What a write would do: the bytes to write, and the texts for the diff."""

    path: Path
    rel: str
    data: bytes
    old_text: str
    new_text: str
    created: bool
    note: str = ""


def _existing_file(ctx: ToolContext, path: Path) -> tuple[TextFile, bytes]:
    from axon_cli.tools.builtin.files.buffers import read_buffer
    from axon_cli.tools.builtin.files.fileio import MAX_EDIT_BYTES, decode_bytes, is_binary

    rel = ctx.relative(path)
    if path.is_dir():
        raise ToolError(f"{rel} is a directory: use list_files to see its contents")
    buffer = read_buffer(ctx, path)              # the editor's unsaved text, when it offers it
    if buffer is not None:
        data = buffer.encode("utf-8", "surrogatepass")
        return decode_bytes(data), data
    size = path.stat().st_size
    if size > MAX_EDIT_BYTES:
        raise ToolError(f"{rel} is too large to edit here ({size} bytes); use bash (sed, a script)")
    data = path.read_bytes()
    if is_binary(data[:8192]):
        raise ToolError(f"{rel} is a binary file; it cannot be edited as text")
    return decode_bytes(data), data


def _current_file(ctx: ToolContext, path: Path, rel: str) -> TextFile:
    """An existing file's text, for a change to it: not a directory, not changed since it was read."""
    from axon_cli.tools.builtin.files.fileio import check_fresh

    if path.is_dir():
        raise ToolError(f"{rel} is a directory: give a file path")
    check_fresh(ctx, path, rel)
    return _existing_file(ctx, path)[0]


def empty_old_string_message(rel: str, text: str) -> str:
    """How to add to a non-empty file when old_string was left empty (small models try to append so)."""
    last = next((line for line in reversed(text.splitlines()) if line.strip()), "")
    return (f"old_string is empty but {rel} is not empty. To append, use its last line as the anchor: "
            f"old_string = {json.dumps(last, ensure_ascii=False)} and new_string = that line, a newline, then "
            "the text to add. To change other text, quote that text as old_string; to replace the whole file, "
            "use write_file.")


def file_name_message(rel: str) -> str:
    """old_string was the file's own name (a small model's way of asking to delete or rename it)."""
    return (f"old_string is the name of the file, not text in it: edit_file replaces text inside {rel}. Read "
            "the file (read_file), then give the exact text to change as old_string and what replaces it as "
            "new_string. edit_file never renames, moves or deletes a file: that is a shell command, and only "
            "when the task asks for it.")


def plan_edit(inp: EditFileInput, ctx: ToolContext) -> Plan:
    from axon_cli.tools.builtin.files.matching import find_spans, restyle
    from axon_cli.tools.builtin.files.reading import missing_file_message

    path = ctx.resolve(inp.path)
    rel = ctx.relative(path)
    if inp.old_string.strip() in {rel, path.name, inp.path.strip()} and path.is_file() and \
            inp.old_string not in _existing_file(ctx, path)[0].text:
        raise ToolError(file_name_message(rel))
    if inp.old_string == inp.new_string:
        raise ToolError("old_string and new_string are identical, so nothing would change: old_string must be "
                        "the text as it is now in the file (read_file shows it) and new_string the corrected "
                        "text that replaces it")
    if not path.exists():
        if inp.old_string:
            raise ToolError(missing_file_message(ctx, path))
        return Plan(path, rel, inp.new_string.encode("utf-8"), "", inp.new_string, created=True)
    tf = _current_file(ctx, path, rel)
    text = tf.text
    if not inp.old_string:
        if text:
            raise ToolError(empty_old_string_message(rel, text))
        new_text = tf.to_style(inp.new_string)
        return Plan(path, rel, tf.encode(new_text), text, new_text, created=False)
    try:
        found = find_spans(text, inp.old_string, inp.replace_all)
    except ToolError as e:
        edits = whole_file_edits(ctx)
        if edits is not None and edits.small(text):      # a small model's guess: the whole file works
            raise ToolError(str(e) + no_match_hint(rel)) from None
        raise
    new = tf.to_style(inp.new_string)
    first_start, first_end = found.spans[0]
    at_line_start = first_start == 0 or text[first_start - 1] == "\n"
    new = restyle(new, inp.old_string, text[first_start:first_end], found, at_line_start)
    pieces, pos = [], 0
    for start, end in found.spans:
        pieces += [text[pos:start], new]
        pos = end
    new_text = "".join(pieces) + text[pos:]
    note = ""
    if found.layer:
        note = (f"note: no exact match; matched ignoring {_forgiven(found.layer)}, "
                "and wrote the replacement in the file's own style")
    return Plan(path, rel, tf.encode(new_text), text, new_text, created=False, note=note)


def _forgiven(layer: str) -> str:
    from axon_cli.tools.builtin.files.matching import LAYERS

    done = LAYERS[: LAYERS.index(layer) + 1]
    return ", ".join(done[:-1]) + (" and " if len(done) > 1 else "") + done[-1]


def plan_write(inp: WriteFileInput, ctx: ToolContext) -> Plan:
    path = ctx.resolve(inp.path)
    rel = ctx.relative(path)
    if not path.exists():
        if path.parent.exists() and not path.parent.is_dir():
            raise ToolError(f"{ctx.relative(path.parent)} is a file, not a directory")
        return Plan(path, rel, inp.content.encode("utf-8"), "", inp.content, created=True)
    tf = _current_file(ctx, path, rel)
    content = inp.content
    if tf.newline == "\r\n" and "\r" not in content:
        content = tf.to_style(content)
    if whole_file_edits(ctx) is not None and (why := lossy_rewrite(rel, tf.text, content)) is not None:
        raise ToolError(why)
    return Plan(path, rel, tf.encode(content), tf.text, content, created=False)
