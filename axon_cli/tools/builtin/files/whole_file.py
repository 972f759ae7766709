"""Whole-file edits, for models that rewrite a small file more reliably than they quote an exact
passage of it (aider measured this of small models, and picks the edit format per model).

When the answer guidance puts a ``WholeFileEdits`` in ``ToolContext.extra`` (``KEY``), the file
tools change their contract for this session:

- ``write_file`` is the edit path of a file of up to ``max_lines`` lines: its description says so,
  and ``edit_file``'s says it is for larger files (both tools stay callable for any file);
- an ``edit_file`` whose old_string is not in such a small file is answered with the way that
  works: its whole new content through ``write_file``;
- a rewrite that would lose most of a file (``lossy_rewrite``) is refused before anyone is asked:
  a small model that sends back only the part it changed must not wipe the rest.

The three safety layers are the same for a rewrite as for an edit: the file was read (or attached)
first, it has not changed since, and the diff is what the approval and the result show.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from axon_cli.tools.spec import ToolContext, ToolSpec

__all__ = ["WholeFileEdits", "WHOLE_FILE_LINES", "whole_file_edits", "lossy_rewrite", "no_match_hint",
           "describe_for_whole_files"]

WHOLE_FILE_LINES = 80
KEPT_AT_LEAST = 0.5       # of the old file's text a rewrite must keep (by characters, blank space aside)
MIN_LINES = 4             # a file this short may be rewritten to anything


@dataclass(frozen=True)
class WholeFileEdits:
    """Small files are changed whole (``max_lines``: what counts as small)."""

    max_lines: int = WHOLE_FILE_LINES
    KEY = "whole_file_edits"

    def small(self, text: str) -> bool:
        return text.count("\n") <= self.max_lines


def whole_file_edits(ctx: ToolContext) -> WholeFileEdits | None:
    """This session's whole-file edits, or None when the file tools keep their usual contract."""
    found = ctx.extra.get(WholeFileEdits.KEY)
    return found if isinstance(found, WholeFileEdits) else None


def _kept(text: str) -> int:
    return len("".join(text.split()))


def lossy_rewrite(rel: str, old: str, new: str) -> str | None:
    """Why a rewrite of ``rel`` from ``old`` to ``new`` is refused (it keeps less than half of the
    file's text), or None."""
    lines = [line for line in old.splitlines() if line.strip()]
    if len(lines) < MIN_LINES or _kept(new) >= KEPT_AT_LEAST * _kept(old):
        return None
    new_lines = len([line for line in new.splitlines() if line.strip()])
    return (f"write_file would replace the {len(lines)} lines of {rel} with {new_lines}, losing most of the "
            f"file, so nothing was written. write_file takes the complete new content: send every line of "
            f"{rel} as it is, with only the part the task changes changed.")


def no_match_hint(rel: str) -> str:
    """What to do instead when an exact passage of a small file was not found."""
    return (f" {rel} is small: change it by sending its complete new content (every line, with the change "
            f"made) to write_file instead.")


def describe_for_whole_files(specs: list[ToolSpec[Any]], edits: WholeFileEdits) -> None:
    """Word ``write_file`` as the edit path of small files and ``edit_file`` as the one of larger files."""
    n = edits.max_lines
    for spec in specs:
        if spec.name == "write_file":
            spec.description = (f"Create a file, or change a file of up to {n} lines: give its complete new "
                                "content (every line, with the change made). Changing an existing file needs "
                                "it read first (read_file, or attached to the task). A rewrite that drops "
                                "most of a file is refused.")
        elif spec.name == "edit_file":
            spec.description = (f"Replace old_string with new_string in a file of more than {n} lines read "
                                "earlier with read_file; old_string must match exactly once. A smaller file is "
                                "changed with write_file and its complete new content.")
