"""Today's masking, kept verbatim as the reference the fast path is compared with (tests only).

The module text of ``axon_cli/tools/masking.py`` and the ``StreamCapture`` class of
``axon_cli/tools/governance.py`` as they were before masking became one compiled pass
(issue 13). ``tests/masking/test_masking_equivalence.py`` checks that the new masker, restricted to
the rules that existed then, gives exactly the same output on random text.
"""
# ruff: noqa


from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
import codecs
from pathlib import Path
from typing import IO

from axon_cli.tools.governance import head_tail, spill_file_path

_PENDING_MAX = 1 << 20

__all__ = ["Masker", "ReferenceCapture", "safe_boundary"]

REDACTED = "[REDACTED]"

# Known shapes. Character classes exclude quotes and backslashes (JSON-safe replacement).
_PEM = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[^\"]*?"
                  r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?=\\*\"|\Z))")
_SK = re.compile(r"\bsk-(?:proj-|svcacct-|admin-|ant-(?:api|admin)\d\d-)?[A-Za-z0-9_\-]{20,}")
_AWS_ID = re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")
_GITHUB = re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b")
_SLACK = re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}")
_GOOGLE = re.compile(r"\bAIza[0-9A-Za-z_\-]{35}")
_JWT = re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")
# Authorization headers: "Bearer <token>", "Basic <base64>" (a digit in it, so prose is left alone).
_BEARER = re.compile(r"(?i)(\b(?:bearer|basic)\s+)(?=[A-Za-z0-9._~+/\-]*\d)([A-Za-z0-9._~+/\-]{12,}=*)")
# scheme://user:password@host -> the password part.
_URL_CREDENTIALS = re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@\"'\\]+:)([^\s/@\"'\\]{3,})(@)")

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

_SECRET_NAME = re.compile(
    r"(?i)(?:^|_)(?:API_?KEY|KEY|KEYS|TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASS|PASSPHRASE|"
    r"CREDENTIALS?|AUTH|PRIVATE_KEY|SESSION_TOKEN)(?:_|$)|APIKEY|PASSWORD|SECRET|TOKEN|CREDENTIAL")
_NOT_SECRET_NAME = re.compile(
    r"(?i)(?:_(?:SOCK|FILE|PATH|DIR|DIRS|HOME|ID|TYPE|NAME|KIND|MODE|HOST|PORT|REGION|URL|ENDPOINT|"
    r"LENGTH|SIZE|TIMEOUT)$|^(?:SSH_AUTH_SOCK|XAUTHORITY|GPG_AGENT_INFO|KEYTIMEOUT)$)")
_SECRET_PREFIXES = ("OPENAI_API_KEY", "ANTHROPIC_", "AWS_SECRET", "AWS_SESSION_TOKEN", "AZURE_OPENAI_API_KEY",
                    "GOOGLE_API_KEY", "GEMINI_API_KEY", "GROQ_API_KEY", "MISTRAL_API_KEY",
                    "OPENROUTER_API_KEY", "DEEPSEEK_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")
_PEM_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")


def is_secret_env_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a secret (``OPENAI_API_KEY``, ``DB_PASS``)."""
    return bool(_SECRET_NAME.search(name)) and not _NOT_SECRET_NAME.search(name)


def is_credential_env(name: str) -> bool:
    """Whether a variable must not reach commands axon runs: secret-looking, or a provider credential
    family (``ANTHROPIC_*``, ``AWS_SECRET*``, ...)."""
    return is_secret_env_name(name) or name.upper().startswith(_SECRET_PREFIXES)


def _env_secret_values(env: Mapping[str, str]) -> list[str]:
    values = set()
    for name, value in env.items():
        value = value.strip()
        if len(value) < 8 or not is_secret_env_name(name):
            continue
        if value.startswith(("/", "~", "./")) or value.isdigit() or value.lower() in ("true", "false"):
            continue
        values.add(value)
    return sorted(values, key=len, reverse=True)


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


class Masker:
    """Masks known secret shapes and the values of secret-looking environment variables."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env_values = _env_secret_values(os.environ if env is None else env)

    def __call__(self, text: str) -> str:
        if not text:
            return text
        for value in self._env_values:
            if value in text:
                text = text.replace(value, REDACTED)
        if "PRIVATE KEY" in text:
            text = _PEM.sub(REDACTED, text)
        low = text.lower()
        if len(low) != len(text):      # a rare case mapping changed lengths: every shape, everywhere
            return _apply(text, range(len(_SHAPES)))
        hits = _hit_lines(text, low)
        if not hits:
            return text
        out, pos = [], 0
        for (start, end), shapes in sorted(hits.items()):
            out.append(text[pos:start])
            out.append(_apply(text[start:end], sorted(shapes)))
            pos = end
        out.append(text[pos:])
        return "".join(out)


def _sub_assignments(line: str) -> str:
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


def _sub(pattern: re.Pattern[str], keep: tuple[int, ...] = ()) -> Callable[[str], str]:
    """A line substitution: the match becomes ``[REDACTED]``, or the groups in ``keep`` (0 = REDACTED)."""
    if not keep:
        return lambda line: pattern.sub(REDACTED, line)
    return lambda line: pattern.sub(lambda m: "".join(m.group(i) if i else REDACTED for i in keep), line)


# Each line-local shape, with the (lowercase) strings a line must contain for it to apply: lines are
# found with ``str.find``, much faster than ``re`` scanning, so large outputs are masked quickly.
_SHAPES: list[tuple[tuple[str, ...], Callable[[str], str]]] = [
    (("sk-",), _sub(_SK)),
    (("akia", "asia"), _sub(_AWS_ID)),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), _sub(_GITHUB)),
    (("xox",), _sub(_SLACK)),
    (("aiza",), _sub(_GOOGLE)),
    (("eyj",), _sub(_JWT)),
    (("bearer", "basic"), _sub(_BEARER, (1, 0))),
    (("://",), _sub(_URL_CREDENTIALS, (1, 0, 3))),
    (("pass", "pwd", "secret", "token", "key", "cred"), _sub_assignments),
]


def _apply(line: str, shapes: Iterable[int]) -> str:
    for index in shapes:
        line = _SHAPES[index][1](line)
    return line


def _hit_lines(text: str, low: str) -> dict[tuple[int, int], set[int]]:
    """The (start, end) of every line holding a needle, with the shapes to apply to it."""
    hits: dict[tuple[int, int], set[int]] = {}
    for index, (needles, _fn) in enumerate(_SHAPES):
        for needle in needles:
            i = low.find(needle)
            while i >= 0:
                start = text.rfind("\n", 0, i) + 1
                end = text.find("\n", i)
                end = len(text) if end < 0 else end
                hits.setdefault((start, end), set()).add(index)
                i = low.find(needle, end)
    return hits


def safe_boundary(text: str) -> int:
    """How much of ``text`` can be masked on its own when more text follows (streaming).

    The end of the last complete line, but never past the start of a PEM private key block that
    has not ended yet (its lines must be masked together). 0 means: wait for more text.
    """
    end = text.rfind("\n") + 1
    if end == 0:
        return 0
    begin = None
    for m in _PEM_BEGIN.finditer(text, 0, end):
        begin = m.start()
    if begin is not None and not _PEM_END.search(text, begin, end):
        return begin
    return end


_default: Masker | None = None


def mask(text: str) -> str:
    """Mask ``text`` with the process-wide masker (built from ``os.environ`` on first use)."""
    global _default
    if _default is None:
        _default = Masker()
    return _default(text)


def reset_default() -> None:
    """Forget the process-wide masker (after the environment changed; tests)."""
    global _default
    _default = None


class ReferenceCapture:
    """Output arriving in pieces: masked line-wise, bounded in memory, spilled once over ``limit``.

    Everything kept (head and tail windows, the spill file) is masked text. A secret split across
    a line longer than 1 MB may escape masking; PEM key blocks are held back until they end.
    """

    def __init__(self, limit: int, state_dir: Path, tool: str, mask: Callable[[str], str]) -> None:
        self.limit = limit
        self.total = 0                  # masked chars seen
        self.spill_path: str | None = None
        self._state_dir, self._tool, self._mask = state_dir, tool, mask
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pending = ""
        self._head = ""
        self._tail = ""
        self._file: IO[str] | None = None

    def feed(self, data: bytes) -> None:
        self._pending += self._decoder.decode(data)
        n = safe_boundary(self._pending)
        if n == 0 and len(self._pending) > _PENDING_MAX:
            n = len(self._pending)
        if n:
            chunk, self._pending = self._pending[:n], self._pending[n:]
            self._add(self._mask(chunk))

    def close(self) -> None:
        """Flush what is pending and close the spill file (idempotent)."""
        self._pending += self._decoder.decode(b"", final=True)
        if self._pending:
            chunk, self._pending = self._pending, ""
            self._add(self._mask(chunk))
        if self._file is not None:
            self._file.close()
            self._file = None

    def text(self, limit: int | None = None) -> str:
        """All of the output if it fits ``limit`` (default: the capture's), else head + marker + tail."""
        limit = self.limit if limit is None else min(limit, self.limit)
        if self.total <= limit:
            return self._head[:self.total]
        return head_tail(self._head, self._tail, self.total, limit)

    def _add(self, s: str) -> None:
        if not s:
            return
        if self._file is None and self.total + len(s) > self.limit:
            path = spill_file_path(self._state_dir, self._tool)
            self._file = open(path, "w", encoding="utf-8", errors="replace")  # noqa: SIM115
            self.spill_path = str(path)
            self._file.write(self._head)   # everything so far is still in the head window
        if self._file is not None:
            self._file.write(s)
        self.total += len(s)
        if len(self._head) < self.limit:
            self._head += s[:self.limit - len(self._head)]
        self._tail += s
        if len(self._tail) > 2 * self.limit:
            self._tail = self._tail[-self.limit:]
