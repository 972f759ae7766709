"""What ``search_files`` says beside its matches, for the ways small models search.

- The pattern ends in ``\\n`` (line-by-line matching never sees one; ripgrep refuses it): it is
  searched as the end of the line, ``$``, and the result says so.
- Nothing matched, case-sensitively, but lines match ignoring case: how many (``todo`` for ``TODO``).
- Nothing matched among the files of a ``glob`` (a guessed ``*.js``), but the same search finds
  lines in other files: those lines are shown (``search.py``).
- Nothing matched at all, but a looser search finds lines: with either quote, no ``^``/``$``
  anchors, any spacing and any case (``^version = '(.+)'$`` for ``version = "0.4.2"``). Those lines
  are shown, said to be from the looser search, instead of "no matches" and a guess.
- The pattern is a file name (``^data/orders.csv$``): search looks inside files; the file is read
  with ``read_file`` when it is there, and ``list_files`` finds names. A looser search for a file
  name looks for its stem (``parse_line.py`` when asked where ``parse_line`` is defined).
- The pattern is a name, and among the matches are the lines that define it and lines that use
  it: which is the definition (a question "which file defines X" is otherwise answered with the
  first file that imports it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

__all__ = ["Matching", "case_note", "line_end_pattern", "looser", "looser_lines", "loosened_how", "file_name_note", "definition_note",
           "LOOSE_MAX"]

Matching = Callable[[str, bool], Iterable[tuple[str, int, str]]]   # (pattern, ignore_case) -> matches
LOOSE_MAX = 10                  # lines a looser search shows

_FILE_NAME = re.compile(r"^[\w./-]*\.[A-Za-z]\w{0,5}$")    # settings.ini, data/orders.csv: not a regex
_NAME = re.compile(r"^[A-Za-z_]\w*$")
_ASSIGN = (r"^\s*(?:export\s+)?(?:(?:const|let|var|val|final|static|public|private|protected|readonly|pub)\s+)*"
           r"{name}\s*(?::[^=\n]*)?=(?!=)")
_DECLARE = (r"^\s*(?:export\s+)?(?:(?:pub|async|public|private|protected|static|abstract|default)\s+)*"
            r"(?:def|class|function|fn|func|type|struct|enum|interface|trait|module|object)\s+{name}\b"
            r"|^\s*#\s*define\s+{name}\b")


def line_end_pattern(pattern: str) -> str | None:
    """``TODO.*\\n`` → ``TODO.*$``: a pattern ending in a newline (which line-by-line matching never
    sees; ripgrep refuses it) means the end of the line. None for any other pattern."""
    m = re.search(r"(?:\\r)?\\n\Z", pattern)
    if m is None or (len(pattern) - len(pattern[:m.start()].rstrip("\\"))) % 2:
        return None                        # not there, or an escaped backslash followed by "n"
    return pattern[:m.start()] + "$"


def case_note(pattern: str, matching: Matching) -> str:
    n = sum(1 for _ in matching(pattern, True))
    if not n:
        return ""
    return (f"\n[the search is case-sensitive: {n} line{'s' if n != 1 else ''} match ignoring case; "
            "search again with ignore_case true]")


def looser(pattern: str) -> str | None:
    """The pattern with its anchors dropped, quotes either way and any spacing — or, for a file
    name, its stem (``parse_line.py`` for the function ``parse_line``); None when that is the same
    pattern (or it is not a valid regex)."""
    if _FILE_NAME.match(pattern.strip("^$")):
        stem = pattern.strip("^$").rsplit("/", 1)[-1].rsplit(".", 1)[0]
        return stem if _NAME.match(stem) and len(stem) >= 4 else None
    loose = pattern.removeprefix("^")
    if loose.endswith("$") and not loose.endswith("\\$"):
        loose = loose[:-1]
    if "[" not in loose:                       # quotes inside a character class stay as written
        loose = re.sub(r"['\"]", "[\"']", loose)
    loose = re.sub(r"(?:\\s| )+", r"\\s*", loose)
    if loose == pattern:
        return None
    try:
        re.compile(loose)
    except re.error:
        return None
    return loose


def loosened_how(pattern: str) -> str:
    """How ``looser`` loosened ``pattern``, for the note."""
    if _FILE_NAME.match(pattern.strip("^$")):
        return "the file name's stem, any case"
    return "either quote, no ^/$ anchors, any spacing, any case"


def looser_lines(pattern: str, matching: Matching) -> tuple[str, list[tuple[str, int, str]]]:
    """The looser pattern and (up to ``LOOSE_MAX`` + 1 of) the lines it finds, sorted."""
    loose = looser(pattern)
    if loose is None:
        return pattern, []
    found: list[tuple[str, int, str]] = []
    for match in matching(loose, True):
        found.append(match)
        if len(found) > LOOSE_MAX:
            break
    return loose, sorted(found)


def file_name_note(pattern: str, is_file: Callable[[str], bool]) -> str:
    """For a pattern that is a file name: read it if it is a file here, else find it with list_files."""
    path = pattern.strip("^$").replace("\\.", ".")
    if not _FILE_NAME.match(path):
        return ""
    if is_file(path):
        return (f"\n[search_files looks for text inside files; {path} is a file: to see its content, "
                f"read_file with path \"{path}\"]")
    name = path.rsplit("/", 1)[-1]
    return (f"\n[search_files looks for text inside files; to find a file by its name, use list_files "
            f"with pattern \"**/{name}\"]")


def definition_note(pattern: str, shown: list[tuple[str, int, str]]) -> str:
    """Which of the lines define ``pattern`` (a plain name) when others only use it."""
    name = pattern.removeprefix("\\b").removesuffix("\\b")
    if not _NAME.match(name):
        return ""
    defines = re.compile(_ASSIGN.format(name=name) + "|" + _DECLARE.format(name=name))
    where = [f"{rel}:{number}" for rel, number, text in shown if defines.search(text)]
    if not where or len(where) == len(shown):
        return ""
    return f"\n[{name} is defined at {', '.join(where[:3])}; the other lines use it]"
