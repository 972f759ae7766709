"""What a change task names, checked against the files themselves.

A sentence of the task that asks for a change (``CHANGE_TASK``: "Delete notes.old", "In a.cfg,
change the limit …", "… and write the result into a new file out.txt") and names paths in the
project: when the turn starts, each named path's state is noted (whether it exists, its size and
mtime). When the model answers, the files say whether the change happened:

- *delete*, *remove*: every named path that existed is expected to be gone;
- any other verb: at least one named path is expected to be new or different; a sentence that
  names no path ("… a bad value in b.conf; fix that value") refers to the file named last before it.

So an answer after emptying a file it was asked to delete, or after changing something else than
the file it was asked to change, is sent back with the fact ("notes.old still exists"), not
with a guess about the model's words. Paths outside the project and sensitive files are never
looked at; a sentence that names no path is not checked.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from axon_cli.permissions.paths import sensitive_reason
from axon_cli.protocols.taskkind import CHANGE_TASK
from axon_cli.tools.spec import ToolContext

__all__ = ["Target", "TaskTargets", "DELETE_VERBS", "SENTENCE_END", "file_mentions"]

DELETE_VERBS = frozenset({"delete", "remove"})
SENTENCE_END = re.compile(r"(?<=[.;!?])\s+|\n+")

_TOKEN = re.compile(r"`([^`\s]+)`|([\w./-]+)")
_KNOWN = {"Makefile", "Dockerfile", "Gemfile", "Rakefile", "Procfile", "Justfile", "Vagrantfile"}


def file_mentions(text: str) -> list[str]:
    """Words of ``text`` that look like paths: in backticks, with a slash or a dot inside, all capitals
    (VERSION, README) or a well-known file name; in order, without duplicates. Whether they exist is
    for the caller to check."""
    found: list[str] = []
    for m in _TOKEN.finditer(text):
        word = (m.group(1) or m.group(2)).rstrip(".,;:!?\"')").lstrip("(\"'").removeprefix("./")
        if not word or word in found:
            continue
        inner = word.rstrip("/")
        if m.group(1) or "/" in word or "." in inner.strip(".") or (inner.isupper() and len(inner) >= 3) \
                or inner in _KNOWN:
            found.append(word)
    return found


State = tuple[int, int] | None        # (size, mtime_ns) of a file, (-1, 0) for a directory, None: absent


@dataclass
class Target:
    """One sentence's change: its verb and the named paths with their state when the turn began."""

    verb: str
    paths: dict[str, State]


def _state(path: Path) -> State:
    try:
        st = path.stat()
    except OSError:
        return None
    return (-1, 0) if path.is_dir() else (st.st_size, st.st_mtime_ns)


class TaskTargets:
    """The change sentences of one task, and ``unmet`` to ask the files whether they are done."""

    def __init__(self, task: str, ctx: ToolContext) -> None:
        self.ctx = ctx
        self.targets: list[Target] = []
        sentences = SENTENCE_END.split(task)
        for i, sentence in enumerate(sentences):
            wanted = CHANGE_TASK.search(sentence)
            if wanted is None:
                continue
            verb = wanted.group(1).lower()
            after = file_mentions(sentence[wanted.start():])      # the verb's object first
            names = after + [n for n in file_mentions(sentence) if n not in after]
            paths = {name: _state(path) for name in names if (path := self._inside(name)) is not None}
            if not paths and verb not in DELETE_VERBS:   # "It reports a bad value in b.conf; fix that value."
                paths = self._file_before(sentences[:i])
            if paths:
                self.targets.append(Target(verb, paths))

    def _file_before(self, sentences: list[str]) -> dict[str, State]:
        """The existing file named last before a change sentence that names none (never for a
        delete: "that file" is for the model to find, not for this check to guess)."""
        for sentence in reversed(sentences):
            for name in reversed(file_mentions(sentence)):
                path = self._inside(name)
                if path is not None and path.is_file():
                    return {name: _state(path)}
        return {}

    def _inside(self, name: str) -> Path | None:
        try:
            path = self.ctx.resolve(name)
            if not path.is_relative_to(self.ctx.project_root) or path == self.ctx.project_root:
                return None
        except (OSError, ValueError):
            return None
        return None if sensitive_reason(self.ctx.relative(path)) else path

    def unmet(self) -> tuple[str, str, str] | None:
        """The first change the files do not show: (fact, verb, path), e.g. ("notes.old still
        exists", "delete", "notes.old"); None when every sentence's change is there."""
        for target in self.targets:
            now = {name: _state(self.ctx.resolve(name)) for name in target.paths}
            if target.verb in DELETE_VERBS:
                left = [n for n, before in target.paths.items() if before is not None and now[n] is not None]
                if left:
                    return f"{left[0]} still exists", target.verb, left[0]
                continue
            if any(now[n] != before for n, before in target.paths.items()):
                continue
            existing = [n for n, before in target.paths.items() if before is not None and before[0] >= 0]
            new = [n for n, before in target.paths.items() if before is None and ("." in n or "/" in n)]
            if target.verb in ("create", "write") and new:
                return f"{new[0]} does not exist yet", target.verb, new[0]
            if existing:
                return f"{existing[0]} has not changed", target.verb, existing[0]
        return None

    @staticmethod
    def delete_command(path: str) -> str:
        return f"rm {shlex.quote(path)}"
