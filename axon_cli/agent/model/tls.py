"""The SDK's TLS context, made ahead on the SDK import thread instead of on the first request.

Building the HTTP client loads the system's CA certificates (tens of milliseconds of
``load_verify_locations``), and the SDK does it when the client is built, just before the first
request — on the main thread, after everything else. OpenSSL loads them without holding the GIL,
so the thread that imports the SDK (``app/preload.py``) first imports the SDK's HTTP library
and makes the context as that library would (its own ``create_ssl_context``: ``SSL_CERT_FILE`` /
``SSL_CERT_DIR`` and the platform's store, certificates verified and host names checked) while
both threads go on importing; the client then gets it through the SDK's public
``DefaultHttpxClient(verify=…)``.

When the endpoint the command line or ``OPENAI_BASE_URL`` names is plain ``http://`` on this machine
or a private network (a llama.cpp or Ollama server; both outrank the settings files, so that is the
endpoint), the run most likely never speaks TLS, so the certificates are not loaded at all: the
context given to the client makes the real one, the same way, on its first TLS connection (the
SDK follows a redirect to ``https://``), and hands that connection to it. Either way a TLS
connection is verified exactly as the library would, so a wrong guess costs time, never checks.

Nothing changes for a process that did not start the thread (ACP, tests building a client
directly), when the SDK turns out to use another HTTP library than the one prepared, or when
anything here fails: ``http_client`` returns None and the SDK makes its own context, as it always
did.
"""

from __future__ import annotations

import importlib
import logging
import ssl
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["expect", "prepare", "http_client"]

log = logging.getLogger("axon.model")
_WAIT_S = 30.0

_LIBRARIES = ("httpx2", "httpx")   # the SDK's HTTP library: httpx2 from openai 3, httpx before

_expected = False
_plain_http = False       # the endpoint named at start is http:// on a local or private address
_ready = threading.Event()
_context: Any = None
_library = ""


def expect(base_url: str | None = None) -> None:
    """Called before the import thread starts: the client will wait for ``prepare``; ``base_url``:
    the endpoint the command line or the environment names, if any."""
    global _expected, _plain_http
    from axon_cli.agent.model.endpoints import is_local_endpoint

    _expected = True
    _plain_http = bool(base_url) and str(base_url).lower().startswith("http://") and is_local_endpoint(base_url)


def prepare() -> None:
    """On the import thread, before the SDK itself is imported: make the context; never raises."""
    global _context, _library
    try:
        from importlib.util import find_spec

        _library = next(name for name in _LIBRARIES if find_spec(name) is not None)
        make = importlib.import_module(_library).create_ssl_context
        _context = TrustOnFirstUse(lambda: make(trust_env=True)) if _plain_http else make(trust_env=True)
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


class TrustOnFirstUse(ssl.SSLContext):
    """A context that loads nothing until a TLS connection needs it: then ``make`` builds the real
    context (certificates, verification, host names, ALPN, as the library makes it) once, and every
    connection is wrapped by that one."""

    _make: Callable[[], ssl.SSLContext]
    _real: ssl.SSLContext | None
    _lock: threading.Lock
    _alpn: list[str] | None

    def __new__(cls, make: Callable[[], ssl.SSLContext]) -> TrustOnFirstUse:
        context = super().__new__(cls, ssl.PROTOCOL_TLS_CLIENT)
        context._make = make
        context._real = None
        context._lock = threading.Lock()
        context._alpn = None
        return context

    def __init__(self, make: Callable[[], ssl.SSLContext]) -> None:
        pass

    def real(self) -> ssl.SSLContext:
        with self._lock:
            if self._real is None:
                self._real = self._make()
                if self._alpn is not None:
                    self._real.set_alpn_protocols(self._alpn)
            return self._real

    def set_alpn_protocols(self, protocols: Any) -> None:
        """The HTTP library names its protocols on the context it was given: kept for the real one."""
        with self._lock:
            self._alpn = list(protocols)
            if self._real is not None:
                self._real.set_alpn_protocols(self._alpn)

    def wrap_socket(self, *args: Any, **kwargs: Any) -> ssl.SSLSocket:  # type: ignore[override]
        return self.real().wrap_socket(*args, **kwargs)

    def wrap_bio(self, *args: Any, **kwargs: Any) -> ssl.SSLObject:  # type: ignore[override]
        return self.real().wrap_bio(*args, **kwargs)
