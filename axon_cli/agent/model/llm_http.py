"""Helpers of the model client: reading error responses (JSON, or a proxy's HTML page as its title)
and Retry-After (any garbage: None), and classifying transport and decoding errors."""

from __future__ import annotations

import email.utils
import html
import json
import math
import re
import time
from typing import Any

__all__ = ["dropped_connection", "empty_error", "extra_field", "api_message", "retry_after", "cause", "is_transport_error",
           "names_streaming", "not_connected", "unreadable", "page_text"]

_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.I | re.S)
_SKIPPED = re.compile(r"<(script|style|head)\b.*?</\1\s*>", re.I | re.S)
_TAG = re.compile(r"<[^>]*>")
PAGE_CHARS = 120


def empty_error(message: str) -> bool:
    """An error response without any explanation (empty body, ``{}``, ``null``)."""
    text = message.strip().strip('"').lower()
    return text in ("", "{}", "null", "[]", "internal server error") or text.startswith("error code: ")


def extra_field(obj: Any, name: str) -> Any:
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(name)
    return value


def api_message(e: Any) -> str:
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])[:300]
        if isinstance(err, str):
            return err[:300]
    try:
        text = e.response.text
        if text:
            try:
                data = json.loads(text)
                if isinstance(data, dict):
                    err = data.get("error", data)
                    if isinstance(err, dict) and err.get("message"):
                        return str(err["message"])[:300]
            except ValueError:
                pass
            return page_text(text)
    except Exception:
        pass
    return str(getattr(e, "message", e))[:300]


HTML_SNIFF_CHARS = 4096        # where an HTML page shows that it is one (doctype, <html>, <title>)


def page_text(text: str) -> str:
    """A short readable line for a body that is not an API error: an HTML page's title, else its
    first words; anything else, its first line (trimmed)."""
    head = text.lstrip()[:HTML_SNIFF_CHARS].lower()
    if head.startswith("<") and ("<html" in head or "<!doctype" in head or "<body" in head or "<title" in head):
        title = _TITLE.search(text[:20000])
        words = title.group(1) if title and title.group(1).strip() else _TAG.sub(" ", _SKIPPED.sub(" ", text[:20000]))
        line = " ".join(html.unescape(words).split())
        line = line if len(line) <= PAGE_CHARS else line[:PAGE_CHARS - 1] + "…"
        return f"an HTML page: {line}" if line else "an HTML page"
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first[:300]


def retry_after(headers: Any) -> float | None:
    """Seconds the server asks to wait (``retry-after-ms``, ``Retry-After`` in seconds or as an HTTP
    date), or None when it says nothing usable (``soon``, a negative or endless number)."""
    ms = _seconds(headers.get("retry-after-ms"))
    if ms is not None:
        return ms / 1000
    value = headers.get("retry-after")
    if not value:
        return None
    seconds = _seconds(value)
    if seconds is not None:
        return seconds
    try:
        parsed = email.utils.parsedate_to_datetime(value)
        return max(0.0, parsed.timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


def _seconds(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) and number >= 0 else None


def cause(e: BaseException) -> str:
    inner = e.__cause__ or e.__context__
    return str(inner or e).splitlines()[0][:200] if (inner or e) else type(e).__name__


def is_transport_error(e: BaseException) -> bool:
    mod = type(e).__module__
    return mod.startswith(("httpx", "httpcore", "h11")) or isinstance(e, (ConnectionError, TimeoutError))


def names_streaming(message: str) -> bool:
    """An error that says streaming itself is the problem (not ``stream_options``)."""
    low = message.lower().replace("stream_options", "")
    return "stream" in low and any(w in low for w in ("not supported", "unsupported", "not implemented",
                                                      "cannot", "can't", "does not support"))


def not_connected(e: BaseException) -> bool:
    """The connection was never made (refused, unreachable, a name that does not resolve, a connect
    timeout) — as opposed to a reply that came and could not be read."""
    inner = e.__cause__ or e.__context__
    return inner is None or type(inner).__name__ in ("ConnectError", "ConnectTimeout", "ProxyError",
                                                     "UnsupportedProtocol")


def unreadable(e: ValueError) -> str:
    """Why a reply could not be read: not JSON, or not UTF-8 (what the parser said, one line)."""
    kind = "not UTF-8" if isinstance(e, UnicodeError) else "not JSON"
    return f"the endpoint's reply is {kind} ({str(e).splitlines()[0][:120] if str(e) else type(e).__name__})"


def dropped_connection(e: BaseException) -> bool:
    """The server took the request, then closed or reset the connection (not: refused, unreachable)."""
    inner = e.__cause__ or e.__context__
    return type(inner).__name__ in ("RemoteProtocolError", "ReadError") if inner else False
