"""The SDK's TLS context, made ahead on the SDK import thread instead of on the first request.

Building the HTTP client loads the system's CA certificates (tens of milliseconds of
``load_verify_locations``), and the SDK does it when the client is built, just before the first
request — on the main thread, after everything else. OpenSSL loads them without holding the GIL,
so the thread that imports the SDK (``startup/preload.py``) first imports the SDK's HTTP library
and makes the context as that library would (its own ``create_ssl_context``: ``SSL_CERT_FILE`` /
``SSL_CERT_DIR`` and the platform's store, certificates verified and host names checked) while
both threads go on importing; the client then gets it through the SDK's public
``DefaultHttpxClient(verify=…)``.

Nothing changes for a process that did not start the thread (ACP, tests building a client
directly), when the SDK turns out to use another HTTP library than the one prepared, or when
anything here fails: ``http_client`` returns None and the SDK makes its own context, as it always
did.
"""

from __future__ import annotations

import importlib
import logging
import threading
from typing import Any

__all__ = ["expect", "prepare", "http_client"]

log = logging.getLogger("axon.model")
_WAIT_S = 30.0

_LIBRARIES = ("httpx2", "httpx")   # the SDK's HTTP library: httpx2 from openai 3, httpx before

_expected = False
_ready = threading.Event()
_context: Any = None
_library = ""


def expect() -> None:
    """Called before the import thread starts: the client will wait for ``prepare``."""
    global _expected
    _expected = True


def prepare() -> None:
    """On the import thread, before the SDK itself is imported: make the context; never raises."""
    global _context, _library
    try:
        from importlib.util import find_spec

        _library = next(name for name in _LIBRARIES if find_spec(name) is not None)
        _context = importlib.import_module(_library).create_ssl_context(trust_env=True)
    except Exception as e:   # no such library or another version of it: the SDK makes its own
        log.debug("TLS context not prepared ahead: %s", e)
        _context = None
    finally:
        _ready.set()


def http_client() -> Any | None:
    """The SDK's default HTTP client over the prepared context, or None (the SDK makes its own)."""
    if not _expected or not _ready.wait(_WAIT_S) or _context is None:
        return None
    try:
        from openai import DefaultHttpxClient

        if _client_package(DefaultHttpxClient) != _library:
            return None
        return DefaultHttpxClient(verify=_context)
    except Exception as e:
        log.debug("prepared TLS context not used: %s", e)
        return None


def _client_package(client_class: type) -> str:
    """The top package of the HTTP library the SDK's client class comes from (httpx or httpx2)."""
    for cls in client_class.__mro__:
        top = cls.__module__.split(".")[0]
        if top.startswith("httpx"):
            return top
    raise LookupError(f"no httpx class in {client_class!r}'s bases")
