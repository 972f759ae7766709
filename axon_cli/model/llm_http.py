"""Helpers of the model client: reading error responses and Retry-After, classifying transport
errors, and turning a non-streaming ChatCompletion into an AssistantTurn's parts."""

from __future__ import annotations

import email.utils
import json
import time
from typing import Any

__all__ = ["dropped_connection", "empty_error", "extra_field", "api_message", "retry_after", "cause", "is_transport_error",
           "names_streaming"]


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
            return text.strip().splitlines()[0][:300]
    except Exception:
        pass
    return str(getattr(e, "message", e))[:300]


def retry_after(headers: Any) -> float | None:
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return float(ms) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value)
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None


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


def dropped_connection(e: BaseException) -> bool:
    """The server took the request, then closed or reset the connection (not: refused, unreachable)."""
    inner = e.__cause__ or e.__context__
    return type(inner).__name__ in ("RemoteProtocolError", "ReadError") if inner else False
