"""Secret masking: applied before anything reaches the model, screen, transcript, audit or spill.

Rules are data (``rules_legacy.py``, ``rules_tokens.py``, ``rules_keywords.py``: provider token
shapes, provider-named assignments, JWTs, PEM private keys, credentials in URLs, ``password=…``;
``rules_blocks.py``: PuTTY private lines and base64-encoded PEM keys, over several lines)
plus the literal values of secret-looking environment variables in axon's own environment. One
prefilter pass finds the lines where any rule may apply; only those lines see a regex. Every
replacement is ``[REDACTED]``; masking is idempotent and never consumes a quote or backslash, so
masking JSON text keeps it valid JSON.
"""

from __future__ import annotations

from axon_cli.machinery.masking.assign import REDACTED
from axon_cli.machinery.masking.engine import RULES, Masker, has_block_mark, safe_boundary
from axon_cli.machinery.masking.envnames import is_credential_env, is_secret_env_name
from axon_cli.machinery.masking.rule_shape import Rule

__all__ = ["mask", "default_masker", "Masker", "REDACTED", "RULES", "Rule", "is_secret_env_name", "is_credential_env",
           "safe_boundary", "has_block_mark", "reset_default"]

_default: Masker | None = None


def default_masker() -> Masker:
    """The process-wide masker (built from ``os.environ`` on first use)."""
    global _default
    if _default is None:
        _default = Masker()
    return _default


def mask(text: str) -> str:
    """Mask ``text`` with the process-wide masker."""
    return default_masker()(text)


def reset_default() -> None:
    """Forget the process-wide masker (after the environment changed; tests)."""
    global _default
    _default = None
