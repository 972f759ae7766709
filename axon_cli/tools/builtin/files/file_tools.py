"""read_file, write_file and edit_file: numbered reads, and edits that cannot land in the wrong place.

Edit layers: read-before-edit, staleness (mtime+size, hash when only the mtime moved), unique
match (exact, then forgiving layers in :mod:`axon_cli.tools.builtin.files.matching`). Writes keep encoding,
BOM, line endings, the final newline and the file mode, and are atomic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from axon_cli.tools.builtin.files.plans import plan_edit, plan_write
from axon_cli.tools.spec import ToolContext, ToolError, ToolOutput, ToolSpec

if TYPE_CHECKING:
    from axon_cli.machinery.sandbox import SandboxStatus
    from axon_cli.tools.builtin.files.plans import Plan

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
            paths=lambda i: [i.path], summarize=lambda i: i.path, preview=_preview(plan_write), check=plan_write),
        ToolSpec(
            name="edit_file",
            description=("Replace old_string with new_string in a file read earlier with read_file. "
                         "old_string must match exactly once (else add context or set replace_all). "
                         "Line endings, indentation style and quotes are kept in the file's style. "
                         "An empty old_string creates a new file."),
            short_description="Replace a unique string in a file",
            input_model=EditFileInput, handler=_edit_file(status), category="edit",
            is_read_only=lambda _i: False,
            paths=lambda i: [i.path], summarize=lambda i: i.path, preview=_preview(plan_edit), check=plan_edit),
    ]


TOOLS: list[ToolSpec[Any]] = build_tools(None)
