"""``NAME=value`` assignments whose name ends in a secret word (``DB_PASSWORD=…``, ``"token": "…"``).

Code is told apart from data (``token = get_token()``, ``password: str``, ``api_key=api_key`` stay);
the regex is tried only where a ``=`` or ``:`` follows such a name (cheap string checks first).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["sub_assignments", "REDACTED"]

REDACTED = "[REDACTED]"

# Names that end in a secret word: DB_PASSWORD, api-key, csrf_token, aws_secret_access_key, PGPASSWORD.
_NAME = (r"(?:[a-z0-9]{1,30}[_.-]){0,6}(?:[a-z0-9]{0,20}(?:password|passwd|passphrase|secret|token|apikey)|"
         r"pass|(?:[a-z0-9]{1,30}[_.-]){1,6}pwd|client[_-]?secret|credentials?|"
         r"(?:api|access|secret|private|signing|encryption|master|client|app|auth)[_-]?key)")
# NAME[:=]VALUE — env files, shell, YAML (`password: x`), JSON (`"password": "x"`, also JSON-escaped).
_ASSIGNMENT = re.compile(
    r"(?i)(?<![\w.])(?P<prefix>(?P<name>" + _NAME + r")(?:\\*[\"'])?"
    r"(?P<sep>[ \t]*[:=][ \t]*)(?!=)(?P<quote>\\*[\"'])?)"
    r"(?P<value>\[REDACTED\]|(?(quote)[^\"'\\\n]{4,4096}(?=\\*[\"'])|"   # quoted: up to the quote
    r"[^\s\"'`,;\\(){}\[\]<>=]{4,4096}(?=[\s\"'`,;\\){}\[\]<>]|$)))"
)
_NAME_ENDINGS = ("pass", "password", "passwd", "passphrase", "pwd", "secret", "token", "key", "credential",
                 "credentials")
_PLACEHOLDER = re.compile(r"(?i)^(?:none|null|nil|true|false|undefined|required|optional|changeme|"
                          r"\$\{?\w+\}?|%\(?\w+\)?s?|\*+|x{3,}|\.{3,}|<[^>]*>|\{\{.*\}\})$")
_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
_IDENT = re.compile(r"^[A-Za-z_]+$")
_SECRETISH_WORD = re.compile(r"(?i)key|token|secret|pass|pwd|cred")
_TYPE_NAMES = {"str", "string", "bytes", "int", "bool", "any", "object", "optional", "secretstr"}


def _looks_like_code(sep: str, quote: str | None, value: str) -> bool:
    """``token = get_token()``, ``password: str``, ``api_key=api_key``, ``secret=${SECRET}`` are no secrets."""
    if _PLACEHOLDER.match(value):
        return True
    if quote:                          # a string literal
        return False
    if _DOTTED.match(value):           # os.environ, self.token, settings.api_key
        return True
    if not _IDENT.match(value):        # digits or symbols: looks like data
        return False
    if _SECRETISH_WORD.search(value):  # api_key=api_key, token=self_token
        return True
    if ":" in sep:                     # an annotation (token: Token) but YAML `password: hunter` is data
        return value[0].isupper() or value.lower() in _TYPE_NAMES
    return sep.strip() != sep          # `token = fetch` is code; `TOKEN=abcdefgh` (env file) is data


def _mask_assignment(m: re.Match[str]) -> str:
    value = m.group("value")
    if value == REDACTED or _looks_like_code(m.group("sep"), m.group("quote"), value):
        return m.group(0)
    return m.group("prefix") + REDACTED


def sub_assignments(line: str) -> str:
    """Mask ``NAME=value`` assignments: the full regex is tried only where a ``=`` or ``:`` follows
    a name ending in a secret word (cheap string checks first; ``re`` scanning is slow)."""
    out, pos = [], 0
    for sep in sorted(_separators(line)):
        if sep < pos:
            continue
        end = len(line[:sep].rstrip(" \t\"'\\"))
        if not line[max(0, end - 12):end].lower().endswith(_NAME_ENDINGS):
            continue
        start = end
        while start > pos and (line[start - 1].isalnum() or line[start - 1] in "_.-"):
            start -= 1
        while start < end and line[start] in ".-":
            start += 1
        m = _ASSIGNMENT.match(line, start)
        if m is None:
            continue
        out.append(line[pos:start])
        out.append(_mask_assignment(m))
        pos = m.end()
    if not out:
        return line
    out.append(line[pos:])
    return "".join(out)


def _separators(line: str) -> Iterable[int]:
    for ch in "=:":
        i = line.find(ch)
        while i >= 0:
            yield i
            i = line.find(ch, i + 1)
