"""The files a task names, put in front of a small model: attached to the user's turn the way an
``@path`` mention attaches them, so the model answers from the text instead of guessing it.

A word of the task counts when it looks like a path (``task_files.file_mentions``) and names a
regular file inside the project that is small (``MAX_FILE_BYTES``), text, not sensitive, and that
``read_file`` would read right now without asking anyone (the rules and the mode allow it, no
PreToolUse hook could have a say). At most ``MAX_FILES`` files and ``MAX_TOTAL_BYTES`` in all; a
file the user attached already is not attached again. Secrets are masked as in every tool result.
An editor's unsaved text (``axon acp``) is attached instead of the disk's, as read_file shows it.
Each attached file counts as read, as of the bytes attached: an edit or rewrite of it passes
read-before-edit, and its staleness check compares against exactly what the model saw.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from axon_cli.agent.guidance.task_files import file_mentions, inside_project
from axon_cli.kernel.turn import Attachment, UserTurn
from axon_cli.machinery.masking import mask
from axon_cli.tools.spec import ToolContext

__all__ = ["attach_named", "MAX_FILE_BYTES", "MAX_FILES", "MAX_TOTAL_BYTES"]

MAX_FILE_BYTES = 8_000
MAX_FILES = 3
MAX_TOTAL_BYTES = 16_000


def _snapshot(path: Path) -> tuple[bytes, os.stat_result] | None:
    """The file's bytes and the stat they belong to (None: changing under us, too large, unreadable)."""
    try:
        before = path.stat()
        if before.st_size > MAX_FILE_BYTES:
            return None
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
        after = path.stat()
    except OSError:
        return None
    same = before.st_mtime_ns == after.st_mtime_ns and before.st_size == after.st_size == len(data)
    return (data, after) if same else None


def _plain_file_inside(path: Path, root: Path) -> bool:
    """A regular file reached without a symbolic link to somewhere else."""
    try:
        real, real_root = path.resolve(), root.resolve()
        return path.is_file() and real.is_relative_to(real_root) and \
            real.relative_to(real_root) == path.relative_to(root)
    except (OSError, RuntimeError, ValueError):
        return False


def attach_named(turn: UserTurn, ctx: ToolContext, reads_unasked: Callable[[str], bool]) -> UserTurn:
    """``turn`` with the small project files its words name attached after the user's own."""
    have = set(turn.attached_paths)
    added: list[Attachment] = []
    total = 0
    for name in file_mentions(turn.text):
        if len(added) >= MAX_FILES:
            break
        path = inside_project(ctx, name)
        if path is None or not _plain_file_inside(path, ctx.project_root):
            continue
        rel = ctx.relative(path)
        if rel in have or not reads_unasked(rel):
            continue
        from axon_cli.tools.builtin.files.buffers import read_buffer, record_buffer  # once a file is named

        buffer = read_buffer(ctx, path)          # an editor's unsaved text is what read_file would show
        if buffer is not None:
            size = len(buffer.encode("utf-8", "surrogatepass"))
            if size <= MAX_FILE_BYTES and total + size <= MAX_TOTAL_BYTES and "\0" not in buffer:
                have.add(rel)
                total += size
                added.append(Attachment(rel, mask(buffer.removesuffix("\n"))))
                record_buffer(ctx, path, buffer)
            continue
        got = _snapshot(path)
        if got is None or total + len(got[0]) > MAX_TOTAL_BYTES or b"\0" in got[0]:
            continue
        data, st = got
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        have.add(rel)
        total += len(data)
        added.append(Attachment(rel, mask(text.removesuffix("\n"))))
        ctx.file_state.record(path, st.st_mtime_ns, st.st_size, hashlib.sha256(data).hexdigest())
    return replace(turn, attachments=turn.attachments + tuple(added)) if added else turn
