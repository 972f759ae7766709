"""An HTTP client for a plain ``http://`` endpoint that loads the CA certificates only if TLS is
ever used (a redirect to https, an https proxy).

The SDK's default client builds its TLS context, CA store included, when it is built (~20 ms),
even for ``http://localhost`` where no TLS happens. Here the client is the SDK's own
(``openai.DefaultHttpxClient``, the same defaults) with a TLS context that is built on first use
by the HTTP library's own ``create_ssl_context()`` — exactly the context it would have built.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any

__all__ = ["http_client_for"]


class _LazyTLSContext:
    """Stands in for an ``ssl.SSLContext``: the real one is built on the first attribute use."""

    def __init__(self, factory: Any) -> None:
        self._factory = factory
        self._real: Any = None
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        with self._lock:
            if self._real is None:
                self._real = self._factory()
        return getattr(self._real, name)


def http_client_for(base_url: str | None) -> Any:
    """The SDK's default client with a lazy TLS context for an ``http://`` URL; None (the SDK
    builds its own) for anything else, or when the HTTP library cannot be found."""
    if not base_url or not base_url.lower().startswith("http://"):
        return None
    import openai

    try:
        base = openai.DefaultHttpxClient.__mro__[1]             # httpx.Client (or a fork of it)
        factory = importlib.import_module(base.__module__.split(".")[0]).create_ssl_context
    except (AttributeError, ImportError, IndexError):
        return None
    verify: Any = _LazyTLSContext(factory)           # duck-typed: used only as an SSLContext
    return openai.DefaultHttpxClient(verify=verify)
