"""A task that renames or moves a path, and the one command that does it.

"Rename notes/draft.md to notes/final.md", "move the file util.py into lib/", "rename the folder
assets to static": the source is the verb's object and the destination follows "to", "into", "as"
or "under". Small models reach for edit_file on the source's text instead, fail, and fail again;
when a call of the turn fails while the move is still to be made, the failed result carries the
exact call that makes it, at most ``MAX_NOTES`` times a turn (``AnswerChecks.with_move_step``), and
the reminders at the answer name it too.

A move is taken only when every fact holds, so the command is right whenever it is named:
- the task asks for changes (``taskkind``: not "how do I move x into y?") and the verb is not
  negated ("do not move x into y");
- the source is a path the task names as one: with a dot or a slash ("util.py", "lib/x"), or after
  "file", "folder" or "directory" ("the folder assets"); "rename the function total to sum" and
  "move the constant LIMIT to config.py" name no path to move;
- the source exists inside the project and is not a sensitive file, and so is the destination's
  place: nothing outside the project, no ``.env``;
- nothing is overwritten: a destination that exists as a file is left to the model (and the user),
  a folder the source goes into must not hold its name already, and the command is ``mv -n``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from axon_cli.agent.guidance.task_files import SENTENCE_END, file_mentions, inside_project
from axon_cli.kernel.prompts import load_sections
from axon_cli.tools.dispatch import CallResult, ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext

__all__ = ["Move", "MoveSteps", "task_moves", "MAX_NOTES"]

MAX_NOTES = 2           # failed calls in one user turn that carry the move's command
_VERB = re.compile(r"\b(rename|move)\s+", re.I)
_NOT = re.compile(r"\b(?:not|never|don'?t|doesn'?t|shouldn'?t|without|instead of|no need to)\s+(?:\w+\s+)?$", re.I)
_KINDS = {"file", "folder", "directory", "dir"}
_FILLER = {"the", "a", "an", "new", "existing", "whole", "entire", "named", "called"} | _KINDS
_TO = {"to": False, "as": False, "into": True, "under": True, "inside": True}   # word → goes into a folder
_WORD = re.compile(r"`[^`\s]+`|[^\s,;]+")
_TEXT = load_sections("guidance_reminders.md")
MOVE_STEP = _TEXT["move-step"]
COPY_REFUSED = _TEXT["copy-refused"]


@dataclass(frozen=True)
class Move:
    """One rename or move the task asks for, as the task names its paths."""

    verb: str
    source: str
    dest: str
    into: bool              # the destination is a folder the source goes into

    def final(self) -> str:
        """Where the source ends up, relative to the project root."""
        return f"{self.dest.rstrip('/')}/{Path(self.source.rstrip('/')).name}" if self.into else self.dest

    def command(self, ctx: ToolContext) -> str | None:
        """The shell command that makes the move now, or None: done already, or it would overwrite."""
        source, final = ctx.resolve(self.source), ctx.resolve(self.final())
        if not source.exists() or final.exists() or (not self.into and final.is_symlink()):
            return None
        place = final.parent
        move = f"mv -n {shlex.quote(self.source.rstrip('/'))} {shlex.quote(self.dest)}"
        if self.into and not self.dest.endswith("/"):
            move += "/"
        if place.exists():
            return move if place.is_dir() else None
        return f"mkdir -p {shlex.quote(str(place.relative_to(ctx.project_root)))} && {move}"


def _clean(word: str) -> str:
    return word.strip("`").rstrip(".,;:!?\"')").lstrip("(\"'").removeprefix("./")


def _parse(after_verb: str) -> tuple[str, bool, str, str] | None:
    """(source, named as a path, joining word, destination) from the words after the verb; a
    destination named as a folder ends with a slash."""
    words = _WORD.findall(after_verb)
    i, kind = 0, False
    while i < len(words) and words[i].lower() in _FILLER:
        kind = kind or words[i].lower() in _KINDS
        i += 1
    if i + 1 >= len(words):
        return None
    source, joiner = _clean(words[i]), words[i + 1].lower()
    if joiner not in _TO:
        return None
    j, folder = i + 2, False
    while j < len(words) and words[j].lower() in _FILLER:
        folder = folder or words[j].lower() in _KINDS - {"file"}
        j += 1
    if j >= len(words):
        return None
    after = words[j + 1].lower().rstrip(".,;:!?") if j + 1 < len(words) else ""
    dest = _clean(words[j])
    if folder or after in _KINDS - {"file"}:     # "to the folder src", "to the src folder"
        dest = dest.rstrip("/") + "/"
    return source, kind or bool(file_mentions(source)), joiner, dest


def task_moves(task: str, ctx: ToolContext) -> list[Move]:
    """The moves ``task`` asks for whose facts hold (see the module's docstring)."""
    moves: list[Move] = []
    for sentence in SENTENCE_END.split(task):
        for m in _VERB.finditer(sentence):
            if _NOT.search(sentence[:m.start()]):      # "do not move x into y", "without renaming"
                continue
            parsed = _parse(sentence[m.end():])
            if parsed is None:
                continue
            source, named, joiner, dest = parsed
            if not (named and source and dest) or source == dest:
                continue
            src, dst = inside_project(ctx, source), inside_project(ctx, dest)
            if src is None or dst is None or not src.exists():
                continue
            verb = m.group(1).lower()
            if verb == "rename":        # the destination is the new name, never a folder to go into
                dest, into = dest.rstrip("/"), False
            else:
                into = _TO[joiner] or dest.endswith("/") or (dst.is_dir() and not dst.is_symlink())
            if not into and dst.exists():
                continue        # a rename onto an existing file: the model's (and the user's) to settle
            moves.append(Move(verb, source.rstrip("/") if src.is_dir() else source, dest, into))
    return moves


class MoveSteps:
    """One user turn's moves (none unless the task asks for changes) and the exact call that makes
    them, in the protocol's form (``call_text``)."""

    def __init__(self, task: str, ctx: ToolContext, registry: ToolRegistry,
                 call_text: Callable[[str, dict[str, Any]], str], active: bool) -> None:
        self.ctx = ctx
        self.registry = registry
        self.call_text = call_text
        self.moves = task_moves(task, ctx) if active else []
        self.notes = 0               # failed results that carried the call this turn

    def call(self) -> str | None:
        """The call that makes the first move still to be made, or None."""
        if not self.moves or not self.registry.is_active("bash"):
            return None
        command = next((c for move in self.moves if (c := move.command(self.ctx)) is not None), None)
        return None if command is None else self.call_text("bash", {"command": command})

    def unmoved(self) -> set[Path]:
        """The sources of the moves still to be made (an edit of one before it moves is no step of a move)."""
        return {self.ctx.resolve(m.source.rstrip("/")) for m in self.moves if m.command(self.ctx) is not None}

    def annotate(self, results: list[CallResult]) -> list[CallResult]:
        """``results``, the last failed one (a command that exited non-zero too; never a denial)
        carrying the call while a move is still to be made, at most ``MAX_NOTES`` times a turn."""
        failed = [i for i, r in enumerate(results) if r.decision != "deny"
                  and (not r.ok or r.display.get("exit_code") not in (0, None))]
        step = self.call() if failed and self.notes < MAX_NOTES else None
        if step is None or step in results[failed[-1]].content:       # a refused copy already says it
            return results
        self.notes += 1
        out = list(results)
        out[failed[-1]] = replace(out[failed[-1]], content=f"{out[failed[-1]].content}\n{MOVE_STEP.format(call=step)}")
        return out

    def refusal(self, call: ToolCall) -> str | None:
        """Instead of running a write_file that would make a move a copy (its destination written
        while the source is still there): the move's call; else None."""
        if call.name != "write_file" or not self.moves:
            return None
        try:
            path = call.parsed().get("path")
        except (ValueError, AttributeError):
            return None
        if not isinstance(path, str):
            return None
        wanted = [m for m in self.moves if self.ctx.resolve(path) == self.ctx.resolve(m.final())]
        step = self.call() if wanted and self.ctx.resolve(wanted[0].source).exists() else None
        return None if step is None else COPY_REFUSED.format(source=wanted[0].source, call=step)
