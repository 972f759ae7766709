"""Secret masking: applied before anything reaches the model, screen, transcript, audit or spill."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

__all__ = ["mask", "Masker"]

_PATTERNS: list[re.Pattern[str]] = [
    re.compile(r"sk-(?:proj-|ant-(?:api\d\d-)?)?[A-Za-z0-9_\-]{20,}"),
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,}\b"),
    re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.S),
]
_ASSIGNMENT = re.compile(
    r"""(?ix)
    (\b[\w.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth)[\w.-]*
     \s*[:=]\s*["']?)
    ([^\s"'`,;]{4,})
    """
)
_SECRET_ENV = re.compile(r"(?i)(key|token|secret|password|passwd|credential|auth)")
REDACTED = "[REDACTED]"


class Masker:
    """Masks known secret shapes and the values of secret-looking environment variables."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        values = {v for k, v in env.items() if _SECRET_ENV.search(k) and len(v) >= 8}
        self._env_values = sorted(values, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        if not text:
            return text
        for value in self._env_values:
            if value in text:
                text = text.replace(value, REDACTED)
        for pattern in _PATTERNS:
            text = pattern.sub(REDACTED, text)
        return _ASSIGNMENT.sub(lambda m: m.group(1) + (m.group(2) if m.group(2) == REDACTED else REDACTED), text)


_default: Masker | None = None


def mask(text: str) -> str:
    global _default
    if _default is None:
        _default = Masker()
    return _default(text)
