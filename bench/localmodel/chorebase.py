"""What a chore is, building its fixture project, reading the result back, and the checkers' helpers.

A chore is data: a small project (``files``: path -> text), the task sent to ``axon run``, and a
checker, a pure function of (the project's files after the run, the answer axon gave) -> solved.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

Files = dict[str, str]
Checker = Callable[[Files, str], bool]

KINDS = ("ask", "edit", "create", "delete", "move", "multi", "run")
SKIP_DIRS = {".git", ".axon", "__pycache__"}
MAX_READ_BYTES = 1_000_000


@dataclass(frozen=True)
class Chore:
    name: str
    kind: str            # one of KINDS (move: rename/move a file or folder; multi: one change over 2+ files)
    files: Files         # the fixture project
    task: str            # what the user types
    check: Checker       # (final files, answer) -> solved
    steps: int = 1       # how many steps a careful agent needs (1-3), for reading the results


def build_fixture(chore: Chore, root: Path) -> None:
    """Write the chore's files into ``root`` (created), ``git init`` and commit them."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in chore.files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if text.startswith("#!"):
            path.chmod(0o755)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "fixture"]):
        subprocess.run(["git", *ident, *args], cwd=root, env=env, check=True, capture_output=True)


def read_project(root: Path) -> Files:
    """Every text file under ``root`` (not .git/, .axon/ or __pycache__/), by POSIX relative path."""
    out: Files = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if not path.is_file() or path.stat().st_size > MAX_READ_BYTES:
                continue
            out[path.relative_to(root).as_posix()] = path.read_bytes().decode("utf-8", "replace")
    return out


# -- checker helpers ---------------------------------------------------------------------------------

def mentions(answer: str, *values: str) -> bool:
    """True if the answer contains any of ``values`` as a whole token (not inside a longer number/word)."""
    return any(re.search(r"(?<![\w.])" + re.escape(v) + r"(?![\w])", answer, re.IGNORECASE) for v in values)


def unchanged(files: Files, fixture: Files, except_: Iterable[str] = ()) -> bool:
    """Every fixture file other than ``except_`` is still there with the same content."""
    skip = set(except_)
    return all(files.get(rel) == text for rel, text in fixture.items() if rel not in skip)


def lines(text: str | None) -> list[str]:
    return [] if text is None else [ln.rstrip() for ln in text.splitlines()]


def only_line_changed(before: str, after: str | None, old: str, new_pattern: str) -> bool:
    """``after`` is ``before`` with the line ``old`` replaced by one line matching ``new_pattern``."""
    a, b = lines(before), lines(after)
    if after is None or len(a) != len(b) or old not in a:
        return False
    i = a.index(old)
    return re.fullmatch(new_pattern, b[i].strip()) is not None and a[:i] + a[i + 1:] == b[:i] + b[i + 1:]


def load_module(source: str | None) -> dict[str, object] | None:
    """Execute a small module's source in a fresh namespace; None if absent or it does not run."""
    if source is None:
        return None
    namespace: dict[str, object] = {"__name__": "bench_checked"}
    try:
        exec(compile(source, "<checked>", "exec"), namespace)  # noqa: S102 - the fixture's own tiny module
    except Exception:
        return None
    return namespace


def call_is(namespace: dict[str, object] | None, func: str, args: tuple[object, ...], expected: object) -> bool:
    fn = (namespace or {}).get(func)
    if not callable(fn):
        return False
    try:
        return bool(fn(*args) == expected)
    except Exception:
        return False


def renamed_paths(fixture: Files, old: str, new: str) -> dict[str, str]:
    """Old path -> new path for moving the file ``old`` (or every file under the folder ``old``) to ``new``."""
    if old in fixture:
        return {old: new}
    prefix = old.rstrip("/") + "/"
    return {p: new.rstrip("/") + "/" + p[len(prefix):] for p in fixture if p.startswith(prefix)}


def moved(final: Files, fixture: Files, renames: dict[str, str]) -> bool:
    """Exactly the moves asked for: each old path gone, its new path with identical content, every other
    fixture file unchanged and nothing else added or removed."""
    return bool(renames) and final == {renames.get(p, p): text for p, text in fixture.items()}


def move_chore(name: str, files: Files, task: str, old: str, new: str) -> Chore:
    """A ``move`` chore: ``old`` (a file, or a folder and all under it) ends up at ``new``, nothing else changes."""
    renames = renamed_paths(files, old, new)

    def check(final: Files, answer: str) -> bool:
        return moved(final, files, renames)
    return Chore(name, "move", files, task, check)


def changed_exactly(final: Files, fixture: Files, changes: dict[str, str | None]) -> bool:
    """The project is the fixture with ``changes`` applied (path -> new text, None = deleted) and nothing
    else: changed files compared line by line, ignoring trailing spaces and blank lines (a removed line
    may leave a blank one); every other file byte for byte."""
    expected = {p: t for p, t in {**fixture, **changes}.items() if t is not None}
    if set(final) != set(expected):
        return False

    def text_lines(text: str) -> list[str]:
        return [ln for ln in lines(text) if ln.strip()]
    return all(text_lines(final[p]) == text_lines(t) if p in changes else final[p] == t for p, t in expected.items())


def without_line(text: str, line: str) -> str:
    """``text`` with the (first) line whose stripped form is ``line`` removed."""
    rows = text.splitlines(keepends=True)
    i = [r.strip() for r in rows].index(line)
    return "".join(rows[:i] + rows[i + 1:])


def renamed_word(text: str, old: str, new: str) -> str:
    """``text`` with every whole-word ``old`` replaced by ``new`` (a rename of an identifier)."""
    return re.sub(r"(?<![\w])" + re.escape(old) + r"(?![\w])", new, text)
