"""read_file, write_file and edit_file: numbered reads, and edits that cannot land in the wrong place.

Edit layers: read-before-edit, staleness (mtime+size, hash when only the mtime moved), unique
match (exact, then forgiving layers in :mod:`axon_cli.tools.builtin.files.matching`). Writes keep encoding,
BOM, line endings, the final newline and the file mode, and are atomic.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from axon_cli.tools.spec import ToolContext, ToolError, ToolOutput, ToolSpec

if TYPE_CHECKING:
    from axon_cli.sandbox import SandboxStatus
    from axon_cli.tools.builtin.files.fileio import TextFile

# The machinery (buffers, fileio, matching, reading, diag_command) is imported when a file tool runs.

MAX_LINES = 2000        # lines one read_file call shows at most
NESTED_INSTRUCTIONS = "nested_instructions"   # ctx.extra: the session's tracker of nested AGENTS.md/CLAUDE.md

__all__ = ["TOOLS", "build_tools", "ReadFileInput", "WriteFileInput", "EditFileInput", "plan_edit", "plan_write"]


class ReadFileInput(BaseModel):
    path: str = Field(description="file path, relative to the project root")
    offset: int | None = Field(None, ge=1, description="first line to show (1-based)")
    limit: int | None = Field(None, ge=1, le=MAX_LINES, description=f"lines to show (max {MAX_LINES})")


class WriteFileInput(BaseModel):
    path: str = Field(description="file path, relative to the project root")
    content: str = Field(description="the complete new content of the file")


class EditFileInput(BaseModel):
    path: str = Field(description="file path, relative to the project root")
    old_string: str = Field(description="exact text to replace (without read_file's line-number prefix)")
    new_string: str = Field(description="replacement text")
    replace_all: bool = Field(False, description="replace every occurrence of old_string")


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
            f"new_string. To delete the file instead, run rm {shlex.quote(rel)} with bash; to rename it, mv.")


def plan_edit(inp: EditFileInput, ctx: ToolContext) -> Plan:
    from axon_cli.tools.builtin.files.fileio import check_fresh
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
    if path.is_dir():
        raise ToolError(f"{rel} is a directory: give a file path")
    check_fresh(ctx, path, rel)
    tf, _ = _existing_file(ctx, path)
    text = tf.text
    if not inp.old_string:
        if text:
            raise ToolError(empty_old_string_message(rel, text))
        new_text = tf.to_style(inp.new_string)
        return Plan(path, rel, tf.encode(new_text), text, new_text, created=False)
    found = find_spans(text, inp.old_string, inp.replace_all)
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
    from axon_cli.tools.builtin.files.fileio import check_fresh

    path = ctx.resolve(inp.path)
    rel = ctx.relative(path)
    if not path.exists():
        if path.parent.exists() and not path.parent.is_dir():
            raise ToolError(f"{ctx.relative(path.parent)} is a file, not a directory")
        return Plan(path, rel, inp.content.encode("utf-8"), "", inp.content, created=True)
    if path.is_dir():
        raise ToolError(f"{rel} is a directory: give a file path")
    check_fresh(ctx, path, rel)
    tf, _ = _existing_file(ctx, path)
    content = inp.content
    if tf.newline == "\r\n" and "\r" not in content:
        content = tf.to_style(content)
    return Plan(path, rel, tf.encode(content), tf.text, content, created=False)


EMPTIED = ("\n{rel} is now empty but still exists. If the task was to delete it, run `rm {rel}` "
           "with bash.")


def _apply(plan: Plan, ctx: ToolContext, verb: str, status: SandboxStatus | None = None) -> ToolOutput:
    from axon_cli.tools.builtin.files.buffers import write_buffer
    from axon_cli.tools.builtin.files.diag_command import after_edit, before_edit
    from axon_cli.tools.builtin.files.fileio import diff_counts, unified_diff, write_text_file

    ctx.check_cancelled()
    commands = before_edit(plan.path, plan.rel, plan.old_text, ctx, status)    # [diagnostics] globs
    ctx.check_cancelled()            # Ctrl-C while a check ran: the edit is not made yet
    if not write_buffer(ctx, plan.path, plan.new_text):      # through the editor, when it writes
        write_text_file(ctx, plan.path, plan.data)
    checked = _diagnostics(plan) + (   # none of these raises: a check that fails says nothing
        after_edit(commands, plan.path, plan.rel, plan.new_text, ctx, status) if commands else
        _language_server(plan, ctx, status))
    lines = plan.new_text.count("\n") + (0 if plan.new_text.endswith("\n") or not plan.new_text else 1)
    if plan.created:
        diff = unified_diff("", plan.new_text, plan.rel)
        return ToolOutput(f"created {plan.rel}, {lines} lines{checked}", summary=f"created {plan.rel} ({lines} lines)",
                          display={"diff": diff})
    diff = unified_diff(plan.old_text, plan.new_text, plan.rel)
    added, removed = diff_counts(diff)
    text = diff + (f"\n{plan.note}" if plan.note else "")
    if plan.old_text == plan.new_text:
        text = f"{plan.rel} unchanged (the new content is identical)"
    elif not plan.new_text.strip():
        text += EMPTIED.format(rel=plan.rel)
    return ToolOutput(text + checked, summary=f"{verb} {plan.rel} +{added} -{removed}", display={"diff": diff})


def _language_server(plan: Plan, ctx: ToolContext, status: SandboxStatus | None) -> str:
    """A language server's new problems (its client loads on the first edit that may use one)."""
    from axon_cli.tools.builtin.files.lsp_check import check_with_server

    return check_with_server(plan.path, plan.rel, plan.old_text, plan.new_text, plan.created, ctx, status)


def _diagnostics(plan: Plan) -> str:
    """New problems the write left in the file (never raises: a failed check says nothing)."""
    from axon_cli.tools.builtin.files.diagnostics import check_edit

    try:
        return check_edit(plan.path, plan.rel, plan.old_text, plan.new_text, plan.created)
    except Exception:       # the edit is made; a check that breaks must not turn it into an error
        return ""


def _preview(plan_fn: Any) -> Any:
    def preview(inp: Any, ctx: ToolContext) -> str:
        from axon_cli.tools.builtin.files.fileio import unified_diff

        try:
            plan = plan_fn(inp, ctx)
        except (ToolError, OSError):
            return ""
        return unified_diff(plan.old_text, plan.new_text, plan.rel)
    return preview


def read_file(inp: ReadFileInput, ctx: ToolContext) -> ToolOutput:
    from axon_cli.tools.builtin.files.buffers import read_buffer
    from axon_cli.tools.builtin.files.fileio import UNREAD_EDITS
    from axon_cli.tools.builtin.files.reading import missing_file_message, read_image, read_numbered

    path = ctx.resolve(inp.path)
    if path.is_dir():
        raise ToolError(f"{ctx.relative(path)} is a directory: use list_files to see its contents")
    if not path.exists():
        raise ToolError(missing_file_message(ctx, path))
    if not path.is_file():            # a FIFO or a device would block or never end
        raise ToolError(f"{ctx.relative(path)} is not a regular file (a device, FIFO or socket); "
                        "it cannot be read")
    try:
        if (picture := read_image(ctx, path)) is not None:
            return picture
        res = read_numbered(ctx, path, inp.offset or 1, inp.limit or MAX_LINES, read_buffer(ctx, path))
    except PermissionError:
        raise ToolError(f"permission denied reading {ctx.relative(path)}") from None
    span = f"lines {res.first}-{res.first + res.shown - 1}" if res.shown else "no lines"
    text = res.text
    refused = ctx.extra.get(UNREAD_EDITS)
    if refused and path in refused:     # the edit that was refused for want of this read is still to make
        refused.discard(path)
        text += (f"\n[{ctx.relative(path)} is read now; the earlier change to it was not made: make it "
                 "again, old_string exactly as shown above]")
    nested = ctx.extra.get(NESTED_INSTRUCTIONS)     # AGENTS.md / CLAUDE.md of folders below cwd, once
    if nested is not None:
        text += nested.for_read(path)
    return ToolOutput(text, summary=f"read {ctx.relative(path)} ({span})")


def _edit_file(status: SandboxStatus | None) -> Any:
    def edit_file(inp: EditFileInput, ctx: ToolContext) -> ToolOutput:
        return _apply(plan_edit(inp, ctx), ctx, "edited", status)
    return edit_file


def _write_file(status: SandboxStatus | None) -> Any:
    def write_file(inp: WriteFileInput, ctx: ToolContext) -> ToolOutput:
        return _apply(plan_write(inp, ctx), ctx, "wrote", status)
    return write_file


def build_tools(status: SandboxStatus | None) -> list[ToolSpec[Any]]:
    """The file tools of a session whose sandbox is ``status``: a ``[diagnostics]`` command runs where
    that session's bash would (built without a status, none runs)."""
    return [
        ToolSpec(
            name="read_file",
            description=(f"Read a text file; lines are numbered like `cat -n`. At most {MAX_LINES} lines per "
                         "call: page with offset/limit. Read a file before editing or overwriting it. An image "
                         "(PNG, JPEG, GIF, WebP) comes back as the picture."),
            short_description="Read a file with line numbers",
            input_model=ReadFileInput, handler=read_file, category="read",
            is_read_only=lambda _i: True,
            paths=lambda i: [i.path], summarize=lambda i: i.path, max_result_chars=100_000),
        ToolSpec(
            name="write_file",
            description=("Create a file (parent directories too) or replace a whole file. Replacing needs a "
                         "prior read_file. Prefer edit_file to change part of a file. To delete a file, run "
                         "rm with bash."),
            short_description="Create or overwrite a file",
            input_model=WriteFileInput, handler=_write_file(status), category="edit",
            is_read_only=lambda _i: False,
            paths=lambda i: [i.path], summarize=lambda i: i.path, preview=_preview(plan_write)),
        ToolSpec(
            name="edit_file",
            description=("Replace old_string with new_string in a file read earlier with read_file. "
                         "old_string must match exactly once (else add context or set replace_all). "
                         "Line endings, indentation style and quotes are kept in the file's style. "
                         "An empty old_string creates a new file."),
            short_description="Replace a unique string in a file",
            input_model=EditFileInput, handler=_edit_file(status), category="edit",
            is_read_only=lambda _i: False,
            paths=lambda i: [i.path], summarize=lambda i: i.path, preview=_preview(plan_edit)),
    ]


TOOLS: list[ToolSpec[Any]] = build_tools(None)
