"""Quote- and expansion-aware scanning helpers for the fallback shell lexer.

``scan_substitutions`` finds the commands nested in a piece of shell text (``$(…)``, backticks,
inside ``${…}`` and ``$((…))``); the ``_match_*``/``_skip_*`` helpers find where a quoted or
bracketed span ends. Unbalanced input raises ``ShellSyntaxError``.
"""

from __future__ import annotations

import re

__all__ = ["ShellSyntaxError", "decode_ansi_c", "scan_substitutions", "match_paren", "skip_double",
           "skip_backtick", "dollar"]


class ShellSyntaxError(ValueError):
    """The command could not be tokenised (unbalanced quote or bracket, bad heredoc, …)."""


_ANSI = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f",
         "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def decode_ansi_c(body: str) -> str:
    """The value of ``$'body'`` (backslash escapes decoded)."""
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 >= len(body):
            out.append(c)
            i += 1
            continue
        n = body[i + 1]
        if n in _ANSI:
            out.append(_ANSI[n])
            i += 2
        elif n in "xuU":
            size = {"x": 2, "u": 4, "U": 8}[n]
            m = re.match("[0-9a-fA-F]{1," + str(size) + "}", body[i + 2:])
            if m:
                out.append(chr(min(int(m.group(), 16), 0x10FFFF)))
                i += 2 + len(m.group())
            else:
                out.append("\\" + n)
                i += 2
        elif n in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1:])
            assert m is not None
            out.append(chr(int(m.group(), 8) & 0xFF))
            i += 1 + len(m.group())
        else:
            out.append("\\" + n)
            i += 2
    return "".join(out)


def match_paren(text: str, start: int) -> int:
    """Index just past the ``)`` closing the ``(`` before ``start`` (quote-aware)."""
    return _match_closing(text, start, "(", ")", "unbalanced parenthesis")


def match_brace(text: str, start: int) -> int:
    """Index just past the ``}`` closing the ``${`` before ``start`` (quote-aware)."""
    return _match_closing(text, start, "{", "}", "unbalanced ${")


def _match_closing(text: str, start: int, opener: str, closer: str, unbalanced: str) -> int:
    depth, i = 1, start
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            end = text.find("'", i + 1)
            if end < 0:
                raise ShellSyntaxError("unterminated single quote")
            i = end + 1
            continue
        if c == '"':
            i = skip_double(text, i + 1)
            continue
        if c == "`":
            i = skip_backtick(text, i + 1)
            continue
        if c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ShellSyntaxError(unbalanced)


def skip_backtick(text: str, start: int) -> int:
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "`":
            return i + 1
        i += 1
    raise ShellSyntaxError("unterminated backtick")


def skip_double(text: str, start: int) -> int:
    i = start
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        if c == "`":
            i = skip_backtick(text, i + 1)
            continue
        if c == "$" and text.startswith("$(", i):
            i = match_paren(text, i + 2)
            continue
        if c == "$" and text.startswith("${", i):
            i = match_brace(text, i + 2)
            continue
        i += 1
    raise ShellSyntaxError("unterminated double quote")


def dollar(text: str, i: int, subs: list[str]) -> tuple[str, int]:
    """Read an expansion starting at ``text[i] == '$'``; returns (literal text, next index)."""
    if text.startswith("$((", i):
        end = match_paren(text, i + 2)
        subs.extend(scan_substitutions(text[i + 3:end - 1]))
        if end < len(text) and text[end] == ")":
            end += 1
        return text[i:end], end
    if text.startswith("$(", i):
        end = match_paren(text, i + 2)
        subs.append(text[i + 2:end - 1])
        return text[i:end], end
    if text.startswith("${", i):
        end = match_brace(text, i + 2)
        subs.extend(scan_substitutions(text[i + 2:end - 1]))
        return text[i:end], end
    return "$", i + 1


def scan_substitutions(text: str) -> list[str]:
    """The commands nested in ``text`` (``$(…)``, backticks) where quotes do not stop them."""
    subs: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
        elif c == "'" and text.find("'", i + 1) > 0:
            i = text.find("'", i + 1) + 1
        elif c == "`":
            end = skip_backtick(text, i + 1)
            subs.append(text[i + 1:end - 1].replace("\\`", "`"))
            i = end
        elif c == "$":
            _, i = dollar(text, i, subs)
        else:
            i += 1
    return subs
