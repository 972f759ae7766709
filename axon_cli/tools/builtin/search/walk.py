"""The pure-Python file walk: .gitignore rules (nested files too), skipped directories, globs.

Semantics match the ripgrep backend (:mod:`axon_cli.tools.builtin.search.ripgrep`): hidden files are included;
``.git``, ``node_modules``, ``.venv``, ``venv`` and any directory holding ``pyvenv.cfg`` are
skipped; ``.gitignore`` files from the git root down (all parents when there is no git root) and
``.git/info/exclude`` apply, a deeper file overriding a shallower one; symlinks are not followed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["glob_regex", "compile_glob", "Ignorer", "walk_files", "SKIP_DIRS", "in_skipped_dir"]

SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv"})


def _translate(pat: str) -> str:
    out, i, n = [], 0, len(pat)
    while i < n:
        c = pat[i]
        if pat.startswith("**/", i) and (i == 0 or pat[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif pat.startswith("**", i) and i + 2 == n and (i == 0 or pat[i - 1] == "/"):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 2 if pat.startswith("**", i) else 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and _close_bracket(pat, i) > 0:
            j = _close_bracket(pat, i)
            body = pat[i + 1:j]
            neg = body[:1] in ("!", "^")
            body = (body[1:] if neg else body).replace("\\", "\\\\").replace("[", "\\[")
            out.append("[" + ("^/" if neg else "") + body + "]")
            i = j + 1
        elif c == "{" and _close_brace(pat, i) > 0:
            j = _close_brace(pat, i)
            alts = _split_alternatives(pat[i + 1:j])
            out.append("(?:" + "|".join(_translate(a) for a in alts) + ")")
            i = j + 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pat[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _close_bracket(pat: str, i: int) -> int:
    j = i + 1
    if pat[j:j + 1] in ("!", "^"):
        j += 1
    if pat[j:j + 1] == "]":
        j += 1
    return pat.find("]", j)


def _close_brace(pat: str, i: int) -> int:
    depth = 0
    for j in range(i, len(pat)):
        depth += {"{": 1, "}": -1}.get(pat[j], 0)
        if depth == 0:
            return j
    return -1


def _split_alternatives(body: str) -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in body:
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        cur.append(ch)
    parts.append("".join(cur))
    return parts


def glob_regex(pattern: str) -> tuple[re.Pattern[str], bool]:
    """A gitignore-style glob as a regex over '/'-separated relative paths, and whether it is
    only for directories (trailing '/'). Without a '/' inside it matches at any depth."""
    dir_only = pattern.endswith("/")
    pat = pattern.rstrip("/")
    anchored = "/" in pat
    pat = pat.lstrip("/")
    prefix = "" if anchored or pat.startswith("**") else "(?:.*/)?"
    return re.compile("^" + prefix + _translate(pat) + "$", re.DOTALL), dir_only


def compile_glob(pattern: str) -> Callable[[str], bool]:
    regex, _ = glob_regex(pattern)
    return lambda rel: regex.match(rel) is not None


@dataclass
class _Rules:
    root: str                                  # absolute directory the patterns are relative to
    rules: list[tuple[re.Pattern[str], bool, bool]] = field(default_factory=list)  # regex, negate, dir_only


def _parse_ignore(file: Path, root: str) -> _Rules | None:
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    rules = _Rules(root)
    for line in text.splitlines():
        line = line.rstrip("\r")
        if not line or line.startswith("#"):
            continue
        if not line.endswith("\\ "):
            line = line.rstrip(" ")
        negate = line.startswith("!")
        line = line[1:] if negate else line
        if line.startswith(("\\!", "\\#")):
            line = line[1:]
        if line and line != "/":
            regex, dir_only = glob_regex(line)
            rules.rules.append((regex, negate, dir_only))
    return rules if rules.rules else None


class Ignorer:
    """A stack of ignore files; the deepest one that has a say decides."""

    def __init__(self, layers: list[_Rules] | None = None) -> None:
        self.layers = layers or []

    @classmethod
    def for_base(cls, base: Path) -> Ignorer:
        parents = list(reversed(base.parents))
        git_root = next((p for p in reversed([*parents, base]) if (p / ".git").exists()), None)
        layers: list[_Rules] = []
        if git_root is not None:
            exclude = _parse_ignore(git_root / ".git" / "info" / "exclude", str(git_root))
            layers += [exclude] if exclude else []
            parents = [p for p in parents if p == git_root or git_root in p.parents]
        for p in parents:
            rules = _parse_ignore(p / ".gitignore", str(p))
            layers += [rules] if rules else []
        return cls(layers)

    def push(self, directory: Path) -> Ignorer:
        rules = _parse_ignore(directory / ".gitignore", str(directory))
        return Ignorer([*self.layers, rules]) if rules else self

    def ignored(self, path: str, is_dir: bool) -> bool:
        for layer in reversed(self.layers):
            if not path.startswith(layer.root + os.sep):
                continue
            rel = path[len(layer.root) + 1:].replace(os.sep, "/")
            for regex, negate, dir_only in reversed(layer.rules):
                if (is_dir or not dir_only) and regex.match(rel):
                    return not negate
        return False


def walk_files(base: Path, check: Callable[[], None] | None = None) -> Iterator[str]:
    """Every file under ``base`` that is not ignored or skipped (``check`` may raise to stop)."""
    if base.is_file():
        yield str(base)
        return
    yield from _walk(base, Ignorer.for_base(base).push(base), check)


def _walk(directory: Path, ign: Ignorer, check: Callable[[], None] | None) -> Iterator[str]:
    if check is not None:
        check()
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.is_symlink() or entry.name == ".git":
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            continue
        if is_dir:
            if entry.name in SKIP_DIRS or os.path.exists(os.path.join(entry.path, "pyvenv.cfg")):
                continue
            if not ign.ignored(entry.path, True):
                sub = Path(entry.path)
                yield from _walk(sub, ign.push(sub), check)
        elif entry.is_file() and not ign.ignored(entry.path, False):
            yield entry.path


def in_skipped_dir(path: str, base: str, cache: dict[str, bool]) -> bool:
    """Whether a directory between ``base`` (exclusive) and ``path`` is a virtualenv."""
    parent = os.path.dirname(path)
    prefix = base.rstrip(os.sep) + os.sep
    while parent.startswith(prefix):
        hit = cache.get(parent)
        if hit is None:
            hit = cache[parent] = os.path.exists(os.path.join(parent, "pyvenv.cfg"))
        if hit:
            return True
        parent = os.path.dirname(parent)
    return False
