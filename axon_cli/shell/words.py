"""Word-level facts: brace expansion (``{rm,-rf,data}`` is three words to bash) and whether a word is
filled in only when the command runs (``$x``, ``$(…)``, backticks, globs)."""

from __future__ import annotations

__all__ = ["expand_braces", "expand_argv", "dynamic"]

MAX_WORDS = 64


def _closing(word: str, start: int) -> tuple[int, list[int]] | None:
    """The index of the ``}`` closing the ``{`` at ``start`` and its top-level commas; None if unclosed."""
    depth, i = 0, start
    commas: list[int] = []
    while i < len(word):
        c = word[i]
        if c == "\\":
            i += 2
            continue
        if c == "{" and not (i > 0 and word[i - 1] == "$"):
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i, commas
        elif c == "," and depth == 1:
            commas.append(i)
        i += 1
    return None


def _sequence(body: str) -> list[str] | None:
    parts = body.split("..")
    if len(parts) not in (2, 3):
        return None
    a, b = parts[0], parts[1]
    try:
        step = abs(int(parts[2])) or 1 if len(parts) == 3 else 1
        if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
            lo, hi = int(a), int(b)
            values = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
            return [str(v) for v in list(values)[:MAX_WORDS + 1]]
    except ValueError:
        return None
    if len(a) == 1 and len(b) == 1 and a.isalpha() and b.isalpha():
        lo, hi = ord(a), ord(b)
        values = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [chr(v) for v in list(values)[:MAX_WORDS + 1]]
    return None


def expand_braces(word: str) -> list[str]:
    """The words bash makes of ``word`` by brace expansion (``a{b,c}`` → ``ab ac``); ``[word]`` when
    there is none. Quoting is already removed, so a quoted brace is expanded too: extra words only."""
    i = 0
    while i < len(word):
        if word[i] == "\\":
            i += 2
            continue
        if word[i] == "{" and not (i > 0 and word[i - 1] == "$"):
            found = _closing(word, i)
            if found is None:
                return [word]
            end, commas = found
            body = word[i + 1:end]
            options = [word[a + 1:b] for a, b in zip([i, *commas], [*commas, end], strict=True)] if commas else _sequence(body)
            if options:
                out: list[str] = []
                for option in options:
                    for tail in expand_braces(word[:i] + option + word[end + 1:]):
                        out.append(tail)
                        if len(out) > MAX_WORDS:
                            return out
                return out
            i = end
        i += 1
    return [word]


def expand_argv(argv: list[str]) -> list[str]:
    """``argv`` with every word brace-expanded; a word that expands to more than ``MAX_WORDS`` words
    stays as it is (and counts as ``dynamic``)."""
    if not any("{" in a for a in argv):
        return argv
    out: list[str] = []
    for a in argv:
        words = expand_braces(a)
        out += words if len(words) <= MAX_WORDS else [a]
    return out


def dynamic(word: str) -> bool:
    """Whether ``word`` is filled in when the command runs (an expansion, a substitution, or braces
    too many to expand here)."""
    return "$" in word or "`" in word or ("{" in word and len(expand_braces(word)) > MAX_WORDS)
