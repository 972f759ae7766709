"""What a change task names, checked against the files themselves.

A sentence of the task that asks for a change (``CHANGE_TASK``: "Delete notes.old", "In a.cfg,
change the limit …", "… and write the result into a new file out.txt") names the paths it changes
in two ways, and only these count:

- as the verb's object: "Delete notes.old", "remove the file a.txt and b.txt", "create x/y.md";
- as a place: "… in a.cfg", "… from app.py", "… into out.txt", "line 2 of b.log".

A path named any other way ("a .gitignore entry for build.log", "Run tool.py and …") is not a
target. When the turn starts, each target's state is noted (whether it exists, its size and mtime);
when the model answers, the files say whether the change happened:

- a *delete* or *remove* whose object is the path: the path is expected to be gone. "Remove the
  print from app.py" is a change *of* app.py, never a delete of it;
- any other change: at least one named path is expected to be new or different; a sentence that
  names no path ("… a bad value in b.conf; fix that value") refers to the file named last before it.

So an answer after emptying a file it was asked to delete, or after changing something else than
the file it was asked to change, is sent back with the fact ("notes.old still exists"), not
with a guess about the model's words. Paths outside the project and sensitive files are never
looked at; a sentence that names no path is not checked.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from axon_cli.agent.protocols.taskkind import CHANGE_TASK
from axon_cli.policy.paths import sensitive_reason
from axon_cli.tools.spec import ToolContext

__all__ = ["Target", "TaskTargets", "inside_project", "DELETE_VERBS", "SENTENCE_END", "file_mentions", "verb_objects", "places_named"]

DELETE_VERBS = frozenset({"delete", "remove"})
MAX_HASHED = 4 << 20      # bytes of a named file hashed to tell a change; larger ones by mtime
SENTENCE_END = re.compile(r"(?<=[.;!?])\s+|\n+")

_TOKEN = re.compile(r"`([^`\s]+)`|([\w./-]+)")
_DOTFILE = re.compile(r"\.[A-Za-z][\w-]{4,}")      # .gitignore, .editorconfig (not ".log", ".json")
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
                or inner in _KNOWN or _DOTFILE.fullmatch(inner):
            found.append(word)
    return found


_FILLER = {"the", "a", "an", "file", "files", "folder", "folders", "directory", "directories", "dir", "named",
           "called", "both", "new", "empty", "whole", "entire", "script", "module", "config", "and", "&", "old"}
_PLACE = {"in", "into", "to", "inside", "within", "from", "of", "at", "on", "under"}
_STOP = _PLACE | {"for", "that", "which", "with", "so", "by", "as", "because", "where", "when", "if", "then",
                  "instead", "than", "like", "about", "it", "them", "this", "these", "those"}
_MAX_SKIPPED = 3          # words of a noun phrase before the object's path: "a shell script x.sh"
_WORD = re.compile(r"`[^`\s]+`|[^\s,]+|,")


def _mention(word: str) -> str | None:
    found = file_mentions(word)
    return found[0] if len(found) == 1 else None


def verb_objects(after_verb: str) -> list[str]:
    """The paths that are a change verb's object: within the first few words after it, before any
    preposition ("write a shell script x.sh", "delete the file a.txt and b.txt" → a.txt, b.txt; not
    "remove the print from app.py")."""
    found: list[str] = []
    skipped = 0
    for word in _WORD.findall(after_verb):
        name = _mention(word)
        if name is not None:
            found.append(name)
        elif word == "," or word.lower() in _FILLER:
            continue
        elif found or word.lower() in _STOP or skipped >= _MAX_SKIPPED:
            break
        else:
            skipped += 1
    return found


def places_named(sentence: str) -> list[str]:
    """The paths a sentence names as a place: right after "in", "from", "into", "of" … (past "the
    file"): "the port in a.cfg", "the print from app.py", "line 2 of b.log"."""
    words = _WORD.findall(sentence)
    found: list[str] = []
    for i, word in enumerate(words):
        name = _mention(word)
        if name is None or name in found:
            continue
        j = i - 1
        while j >= 0 and words[j].lower() in _FILLER - {"and", "&"}:
            j -= 1
        if j >= 0 and words[j].lower() in _PLACE:
            found.append(name)
    return found


def inside_project(ctx: ToolContext, name: str) -> Path | None:
    """``name`` resolved inside the project (not its root), or None; never a sensitive path."""
    try:
        path = ctx.resolve(name)
        if not path.is_relative_to(ctx.project_root) or path == ctx.project_root:
            return None
    except (OSError, ValueError):
        return None
    return None if sensitive_reason(ctx.relative(path)) else path


State = tuple[int, int] | None        # (size, mtime_ns) of a file, (-1, 0) for a directory, None: absent


@dataclass
class Target:
    """One sentence's change: its verb and the named paths with their state when the turn began."""

    verb: str
    paths: dict[str, State]


def _state(path: Path) -> State:
    """A file's size and a hash of its bytes (``sed -i`` that matched nothing rewrites the file with
    a new mtime, and changed nothing); mtime for a file too large to hash; (-1, 0) for a directory."""
    try:
        st = path.stat()
        if path.is_dir():
            return (-1, 0)
        if st.st_size > MAX_HASHED:
            return (st.st_size, st.st_mtime_ns)
        return (st.st_size, int.from_bytes(hashlib.blake2b(path.read_bytes(), digest_size=8).digest(), "big"))
    except OSError:
        return None


class TaskTargets:
    """The change sentences of one task, and ``unmet`` to ask the files whether they are done."""

    def __init__(self, task: str, ctx: ToolContext) -> None:
        self.ctx = ctx
        self.targets: list[Target] = []
        sentences = SENTENCE_END.split(task)
        for i, sentence in enumerate(sentences):
            verbs = list(CHANGE_TASK.finditer(sentence))
            for n, wanted in enumerate(verbs):      # "change x in a.cfg and add y to b.md": two clauses
                joined = wanted.group(0).strip().lower().startswith(("and", "then"))   # "read x and write y"
                clause = sentence[0 if n == 0 and not joined else wanted.start():
                                  verbs[n + 1].start() if n + 1 < len(verbs) else len(sentence)]
                self._clause(wanted.group(1).lower(), clause, sentence[wanted.end():len(sentence)],
                             sentences[:i])

    def _clause(self, verb: str, clause: str, after_verb: str, before: list[str]) -> None:
        objects = verb_objects(after_verb)
        places = [n for n in places_named(clause) if n not in objects]
        if verb in DELETE_VERBS:         # the object goes; a file it is removed from changes
            self._add(verb, objects)
            self._add("change", places)
        elif not self._add(verb, objects + places) and not file_mentions(clause) \
                and (found := self._file_before(before)):   # "It reports a bad value in b.conf; fix that value."
            self.targets.append(Target(verb, found))

    def _add(self, verb: str, names: list[str]) -> bool:
        """Note ``names`` as one change's paths: ones that exist, and new ones with a dot or a slash
        ("SQL" in "write a SQL query" is no file)."""
        paths = {name: _state(path) for name in names if (path := self._inside(name)) is not None
                 and (path.exists() or "." in name or "/" in name or name in _KNOWN)}
        if paths:
            self.targets.append(Target(verb, paths))
        return bool(paths)

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
        return inside_project(self.ctx, name)

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
