"""The environment of every process axon starts: bash commands (inside the sandbox or out), background
jobs, hooks, MCP servers, diagnostics commands and language servers.

axon's own environment, each variable admitted on its own (``admit``):

- its name must not look like a credential (``masking.is_credential_env``: ``*_TOKEN``, ``*_KEY``,
  ``*_SECRET``, ``*_PASSWORD``, ``*_PASS``, ``*_CREDENTIALS``, ``*_AUTH*``, ``*HEADERS``, cookies,
  provider families such as ``ANTHROPIC_*``);
- a URL credential in its value is removed (``http://user:pass@host/v1`` → ``http://host/v1``: the
  host, port and path are configuration a command may need, the userinfo never is);
- what is left must hold nothing the masker would mask (a token shape, ``password=…``, the value of
  a secret-named variable under another name);
- and never one of axon's own credentials (its API key, the password in its base URL, the telemetry
  and MCP headers of its config), wherever it appears in the value.

Names the user lists in ``env_pass`` (their own config.toml only) skip the first three checks, never
the last. Then the non-interactive settings (``NONINTERACTIVE_ENV``) are set. An MCP server's
configured ``env`` is the user's explicit choice and goes on top (``session/mcp/connect.py``).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

from axon_cli.machinery.masking import default_masker, is_credential_env
from axon_cli.machinery.masking.userinfo import strip_userinfo

__all__ = ["child_env", "admit", "configure", "own_secrets", "NONINTERACTIVE_ENV"]

NONINTERACTIVE_ENV = {
    "CI": "1", "GIT_TERMINAL_PROMPT": "0", "PAGER": "cat", "GIT_PAGER": "cat", "TERM": "dumb",
    "NO_COLOR": "1", "DEBIAN_FRONTEND": "noninteractive", "PYTHONUNBUFFERED": "1",
    "GIT_EDITOR": "true", "EDITOR": "true", "VISUAL": "true",   # a user's vim would wait until the timeout
}
SUBSTRING_MIN = 8           # a shorter credential is matched only as the whole value (not inside words)


class _Policy:
    passed: tuple[str, ...] = ()          # env_pass: names or globs
    secrets: tuple[str, ...] = ()         # from the config (configure)


_policy = _Policy()


def configure(settings: Any) -> None:
    """The session's settings: ``env_pass`` and the credentials its config holds (called once the
    settings are loaded; without it only the environment's credentials are known)."""
    _policy.passed = tuple(getattr(settings, "env_pass", None) or ())
    _policy.secrets = tuple(own_secrets(settings))


def own_secrets(settings: Any) -> list[str]:
    """axon's credentials in ``settings``: the API key, a base URL's or collector's userinfo, the
    values of the telemetry and MCP servers' headers (and a header's token after ``Bearer``)."""
    found = [getattr(settings, "api_key", None) or ""]
    found += _url_secrets(getattr(settings, "base_url", None) or "")
    telemetry = getattr(settings, "telemetry", None)
    headers: list[str] = list((getattr(telemetry, "headers", None) or {}).values())
    found += _url_secrets(getattr(telemetry, "endpoint", None) or "")
    for server in (getattr(settings, "mcp_servers", None) or {}).values():
        headers += list((getattr(server, "headers", None) or {}).values())
        found += _url_secrets(getattr(server, "url", None) or "")
    for value in headers:
        found += [value, value.split(None, 1)[-1]]
    return [s.strip() for s in found if s and s.strip()]


def _url_secrets(url: str) -> list[str]:
    """A URL's password, or its user name when it stands alone in a web URL (a token)."""
    if "@" not in url:
        return []
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return []
    if parts.password:
        return [parts.password, unquote(parts.password)]
    if parts.username and parts.scheme.lower() in ("http", "https") and len(parts.username) >= SUBSTRING_MIN:
        return [parts.username, unquote(parts.username)]
    return []


def _known(environ: Mapping[str, str]) -> tuple[str, ...]:
    """axon's credentials: the configured ones, and those of its environment and of ``environ``."""
    found = list(_policy.secrets)
    for source in (os.environ, environ) if environ is not os.environ else (os.environ,):
        found += [source.get("OPENAI_API_KEY", "").strip(), *_url_secrets(source.get("OPENAI_BASE_URL", ""))]
    return tuple(dict.fromkeys(s for s in found if s))


def _holds(value: str, secrets: Iterable[str]) -> bool:
    return any(value == s or (len(s) >= SUBSTRING_MIN and s in value) for s in secrets)


def _passed(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in _policy.passed)


def admit(name: str, value: str, secrets: Iterable[str] | None = None) -> str | None:
    """The value a child process may see for ``name`` (its URL credentials removed), or None when
    the variable must not reach it. ``secrets``: axon's own credentials (default: the known ones)."""
    kept = _by_name(name, value, _known(os.environ) if secrets is None else tuple(secrets))
    if kept is None or kept[1]:
        return None if kept is None else kept[0]
    return kept[0] if not kept[0] or default_masker()(kept[0]) == kept[0] else None


def _by_name(name: str, value: str, secrets: tuple[str, ...]) -> tuple[str, bool] | None:
    """Every check but the masker's: None (dropped) or the value and whether it is final (passed)."""
    stripped = strip_userinfo(value)
    if _holds(stripped, secrets):
        return None
    if _passed(name):
        return None if _holds(value, secrets) else (value, True)
    return None if is_credential_env(name) else (stripped, False)


def child_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a child process: ``environ`` (default ``os.environ``) admitted variable by
    variable, plus the non-interactive settings."""
    source = os.environ if environ is None else environ
    secrets = _known(source)
    env: dict[str, str] = {}
    unchecked: dict[str, str] = {}
    for name, value in source.items():
        kept = _by_name(name, value, secrets)
        if kept is not None:
            (env if kept[1] or not kept[0] else unchecked)[name] = kept[0]
    env.update(_unmasked(unchecked))
    env.update(NONINTERACTIVE_ENV)
    return env


def _unmasked(values: dict[str, str]) -> dict[str, str]:
    """The variables the masker leaves alone: one-line values masked as one text (one scan, not one
    per variable), each line compared; the others, and all when a line count changed, one by one."""
    mask = default_masker()
    single = {k: v for k, v in values.items() if "\n" not in v and "\r" not in v}
    lines = mask("\n".join(single.values())).split("\n") if single else []
    if len(lines) != len(single):
        lines, single = [], {}
    kept = {k: v for (k, v), line in zip(single.items(), lines, strict=True) if line == v}
    kept.update((k, v) for k, v in values.items() if k not in single and mask(v) == v)
    return kept
