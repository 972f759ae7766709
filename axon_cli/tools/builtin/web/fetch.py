"""HTTP for ``web_fetch``: one GET with bounded redirects, a timeout, a byte cap, no credentials.

Each fetch uses a fresh client that reads nothing from the environment (no proxies, no ``.netrc``)
and sends only a User-Agent and an Accept header: never the model endpoint's API key, cookies or
an Authorization header. Redirects are followed by hand, at most ``MAX_REDIRECTS``, and only on the
same host (http may become https); a redirect to another host ends the fetch with that URL, so the
new host is asked about on its own. Every connection goes through the SSRF guard. Failures raise
``FetchError`` with one line the model can read.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from axon_cli.tools.builtin.web.guard import Blocked, DnsFailure, guarded_backend

__all__ = ["FetchError", "Fetched", "fetch", "MAX_REDIRECTS", "MAX_BYTES", "user_agent"]

MAX_REDIRECTS = 5
MAX_BYTES = 5 * 1024 * 1024
ACCEPT = "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5"
_REDIRECTS = {301, 302, 303, 307, 308}


class FetchError(Exception):
    """A fetch that failed; the message is one line."""


@dataclass
class Fetched:
    url: str                          # the final URL
    status: int
    content_type: str                 # without parameters, lower case ("" when the server sent none)
    charset: str | None
    body: bytes
    redirected_to: str | None = None  # a redirect to another host, not followed


def user_agent() -> str:
    """``axon/VERSION (web_fetch)``: says plainly who fetches."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"axon/{version('axon-cli')} (web_fetch)"
    except PackageNotFoundError:
        return "axon (web_fetch)"


def _http() -> tuple[Any, Any]:
    """The HTTP client modules (the openai SDK's stack: httpx2, or httpx with httpcore)."""
    try:
        import httpcore2
        import httpx2
        return httpx2, httpcore2
    except ImportError:
        import httpcore
        import httpx
        return httpx, httpcore


def _client(httpx: Any, httpcore: Any, timeout: float, named: Callable[[], Iterable[str]]) -> Any:
    transport = httpx.HTTPTransport(trust_env=False)
    transport._pool = httpcore.ConnectionPool(ssl_context=httpx.create_ssl_context(), max_connections=4,
                                              network_backend=guarded_backend(httpcore, named))
    return httpx.Client(transport=transport, trust_env=False, follow_redirects=False,
                        timeout=httpx.Timeout(timeout), headers={"User-Agent": user_agent(), "Accept": ACCEPT})


def fetch(url: str, timeout: float, named: Callable[[], Iterable[str]],
          cancelled: Callable[[], bool] = lambda: False) -> Fetched:
    """GET ``url``; FetchError saying why when it fails."""
    httpx, httpcore = _http()
    deadline = time.monotonic() + timeout * 3
    try:
        current = httpx.URL(url)
    except Exception as e:
        raise FetchError(f"invalid URL {url!r}: {e}") from None
    with _client(httpx, httpcore, timeout, named) as client:
        for _hop in range(MAX_REDIRECTS + 1):
            if current.scheme not in ("http", "https"):
                raise FetchError(f"refused {current}: only http and https URLs are fetched")
            try:
                with client.stream("GET", current) as response:
                    if response.status_code in _REDIRECTS and "location" in response.headers:
                        target = current.join(response.headers["location"])
                        if target.host != current.host:
                            return Fetched(str(current), response.status_code, "", None, b"", str(target))
                        current = target
                        continue
                    return _read(response, str(current), deadline, cancelled)
            except (Blocked, DnsFailure) as e:
                raise FetchError(str(e)) from None
            except httpx.HTTPError as e:
                raise FetchError(_describe(httpx, e, current, timeout)) from None
        raise FetchError(f"too many redirects (more than {MAX_REDIRECTS}) starting at {url}")
    raise AssertionError("unreachable")


def _read(response: Any, url: str, deadline: float, cancelled: Callable[[], bool]) -> Fetched:
    status = response.status_code
    if status >= 400:
        reason = response.reason_phrase or ""
        raise FetchError(f"HTTP {status} {reason}".rstrip() + f" from {url}")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BYTES:
        raise FetchError(f"too large: {int(declared)} bytes (web_fetch reads at most {MAX_BYTES}) at {url}")
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > MAX_BYTES:
            raise FetchError(f"too large: more than {MAX_BYTES} bytes (web_fetch reads at most that) at {url}")
        if cancelled():
            raise FetchError("interrupted")
        if time.monotonic() > deadline:
            raise FetchError(f"timed out reading {url}")
        chunks.append(chunk)
    ctype = response.headers.get("content-type", "")
    return Fetched(url, status, ctype.split(";")[0].strip().lower(), response.charset_encoding, b"".join(chunks))


def _describe(httpx: Any, e: Exception, url: Any, timeout: float) -> str:
    """One line for a transport failure: timeout, TLS, connection refused, ..."""
    text = str(e).splitlines()[0] if str(e) else type(e).__name__
    if isinstance(e, httpx.TimeoutException):
        return f"timed out after {timeout:g}s fetching {url}"
    if "CERTIFICATE" in text.upper() or "SSL" in text.upper() or "TLS" in text.upper():
        return f"TLS error fetching {url}: {text}"
    if isinstance(e, httpx.ConnectError):
        return f"cannot connect to {url.host}: {text}"
    return f"fetching {url} failed: {text}"
