"""Whether a network program's command line names only this machine's loopback (``localhost``,
``127.x.x.x``, ``[::1]``): under the sandbox that is the session's own loopback, where its background
servers listen, so such a ``curl``/``wget``/``nc`` stays inside instead of leaving to reach the
network. Conservative: any word that could name another host (a URL, ``host:port``, a dotted name)
makes the answer no. Pure."""

from __future__ import annotations

import re

__all__ = ["loopback_only"]

_URL = re.compile(r"^[a-z][a-z0-9+.-]*://(?:[^@/]*@)?(\[[^\]]*\]|[^:/?#]*)", re.I)
_HOSTLIKE = re.compile(r"^(\[[0-9a-f:.]*\]|[a-z0-9-]+(?:\.[a-z0-9-]+)+|localhost)(?::\d+)?(?:[/?#].*)?$", re.I)
_LOOPBACK = re.compile(r"^(localhost|127(?:\.\d{1,3}){3}|\[?::1\]?|\[?0*:0*:0*:0*:0*:0*:0*:0*1\]?)$", re.I)


def _host(word: str) -> str | None:
    """The host a word names (a URL or a bare ``host[:port][/path]``), or None when it names none."""
    url = _URL.match(word)
    if url:
        return url.group(1)
    bare = _HOSTLIKE.match(word)
    return bare.group(1) if bare else None


def loopback_only(argv: list[str]) -> bool:
    """Every host ``argv``'s arguments name is loopback, and there is at least one."""
    hosts = [h for h in (_host(w) for w in argv[1:] if not w.startswith("-")) if h is not None]
    return bool(hosts) and all(_LOOPBACK.match(h) for h in hosts)
