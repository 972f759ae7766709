"""The shapes axon masked before the rule table grew (kept first and unchanged: the fast path is
checked against the old implementation with exactly these rules)."""

from __future__ import annotations

import re
from collections.abc import Callable

from axon_cli.machinery.masking.assign import REDACTED, sub_assignments
from axon_cli.machinery.masking.rule_shape import Rule, legacy_rule

__all__ = ["LEGACY_RULES", "PEM", "PEM_BEGIN", "PEM_END"]

# Character classes exclude quotes and backslashes (JSON-safe replacement).
PEM = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[^\"]*?"
                 r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?=\\*\"|\Z))")
PEM_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
PEM_END = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
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


def _sub(pattern: re.Pattern[str], keep: tuple[int, ...] = ()) -> Callable[[str], str]:
    """A line substitution: the match becomes ``[REDACTED]``, or the groups in ``keep`` (0 = REDACTED)."""
    if not keep:
        return lambda line: pattern.sub(REDACTED, line)
    return lambda line: pattern.sub(lambda m: "".join(m.group(i) if i else REDACTED for i in keep), line)


LEGACY_RULES: list[Rule] = [
    legacy_rule("openai-anthropic-key", ("sk-",), _sub(_SK), "OPENAI_KEY sk-proj-{a40}"),
    legacy_rule("aws-access-key-id", ("akia", "asia"), _sub(_AWS_ID), "aws id AKIA{U16}"),
    legacy_rule("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), _sub(_GITHUB),
                "git clone https://x:ghp_{a36}@github.com/o/r"),
    legacy_rule("slack-token", ("xox",), _sub(_SLACK), "SLACK xoxb-{d12}-{d12}-{a24}"),
    legacy_rule("gcp-api-key", ("aiza",), _sub(_GOOGLE), "maps key AIza{w35}"),
    legacy_rule("jwt", ("eyj",), _sub(_JWT), "cookie eyJ{w20}.eyJ{w30}.{w43}"),
    legacy_rule("authorization-header", ("bearer", "basic"), _sub(_BEARER, (1, 0)),
                "Authorization: Bearer {a8}1{a30}"),
    legacy_rule("url-credentials", ("://",), _sub(_URL_CREDENTIALS, (1, 0, 3)),
                "DATABASE_URL=postgres://app:{a16}@db.internal:5432/app"),
    legacy_rule("secret-assignment", ("pass", "pwd", "secret", "token", "key", "cred"), sub_assignments,
                "DB_PASSWORD={a16}"),
]
