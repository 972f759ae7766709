"""Credentials inside URLs (``scheme://user:password@host``): hidden where axon writes a URL, removed
where a child process would see one.

A userinfo part is a secret when it holds a password (``user:pass@``) or sits in a web URL at all
(``https://TOKEN@github.com``: a token alone is the common form there); ``ssh://git@host`` keeps its
user name, which is no credential and which git needs.
"""

from __future__ import annotations

import re

__all__ = ["hide_userinfo", "strip_userinfo", "has_userinfo"]

# scheme://USERINFO@  (USERINFO: up to the last @ before the path; an unescaped @ in a password included)
_USERINFO = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.\-]*://)([^\s/\"'\\?#]+)@")
_WEB = ("http", "https", "ws", "wss", "ftp", "ftps")


def _secret(match: re.Match[str]) -> bool:
    scheme = match.group(1)[:-3].lower()
    return ":" in match.group(2) or scheme in _WEB or scheme.endswith(("+http", "+https"))


def has_userinfo(text: str) -> bool:
    """Whether ``text`` holds a URL with a credential in its userinfo."""
    return "://" in text and any(_secret(m) for m in _USERINFO.finditer(text))


def hide_userinfo(text: str) -> str:
    """``text`` with every URL credential shown as ``***@`` (logs, reports, errors)."""
    if "://" not in text:
        return text
    return _USERINFO.sub(lambda m: f"{m.group(1)}***@" if _secret(m) else m.group(0), text)


def strip_userinfo(text: str) -> str:
    """``text`` with every URL credential removed: ``http://u:p@host/v1`` → ``http://host/v1``."""
    if "://" not in text:
        return text
    return _USERINFO.sub(lambda m: m.group(1) if _secret(m) else m.group(0), text)
