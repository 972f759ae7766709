"""The time and size a model request may take, enforced on the reply's bytes as they arrive.

``request_timeout`` bounds each attempt as a deadline on *progress*, not on bytes: an attempt fails
when that many seconds pass without any of the reply (text, reasoning, a tool call), however many
bytes the server sends meanwhile (``: keep-alive`` comments, chunks with no choices, a slow trickle).
A reply that makes progress pushes its attempt's deadline on, so a slow model streaming a long
answer is never cut. Retries stop once ``request_timeout × max_attempts`` have passed since the
request began: whatever an endpoint does, a request that never gets a reply ends within that.
A reply body over ``MAX_REPLY_BYTES`` is refused as it arrives (no chat completion is that large).

The client's HTTP library calls ``ReplyClock.watch`` with each response before its body is read;
the body's byte stream is replaced by one that checks the clock and the size on every chunk.
"""

from __future__ import annotations

import importlib
import math
import time
from collections.abc import Iterator
from typing import Any

from axon_cli.kernel.errors import LLMError

__all__ = ["ReplyClock", "ReplyTimeout", "ReplyTooLarge", "MAX_REPLY_BYTES"]

MAX_REPLY_BYTES = 32 * 1024 * 1024


class ReplyTimeout(Exception):
    """An attempt passed its deadline while the server kept the connection busy without a reply."""


class ReplyTooLarge(LLMError):
    """A reply body larger than any chat completion (not retried: the same request gets the same)."""


class ReplyClock:
    """The deadlines of one model request (``begin``) and of its current attempt (``attempt``)."""

    def __init__(self, request_timeout: float) -> None:
        self.request_timeout = request_timeout
        self.request_deadline = math.inf
        self.attempt_deadline = math.inf

    def begin(self, request_timeout: float, max_attempts: int) -> None:
        self.request_timeout = request_timeout
        self.request_deadline = time.monotonic() + request_timeout * max_attempts
        self.attempt_deadline = math.inf

    def attempt(self) -> None:
        """A new attempt: ``request_timeout`` without progress, and no later than the request's deadline."""
        self.attempt_deadline = min(time.monotonic() + self.request_timeout, self.request_deadline)

    def progress(self) -> None:
        """Part of the reply arrived: the attempt has ``request_timeout`` again from now."""
        self.attempt_deadline = max(self.attempt_deadline, time.monotonic() + self.request_timeout)

    def left(self) -> float:
        """Seconds before the request's deadline (inf before ``begin``)."""
        return self.request_deadline - time.monotonic()

    def read_timeout(self) -> float:
        """The longest one read of the socket may wait in this attempt (at least a moment)."""
        return max(0.05, min(self.request_timeout, self.attempt_deadline - time.monotonic()))

    def check(self) -> None:
        if time.monotonic() > self.attempt_deadline:
            raise ReplyTimeout(f"no reply within {self.request_timeout:g} s (the server kept the connection "
                               "open without sending any of it)")

    def watch(self, response: Any) -> None:
        """The HTTP library's response hook: the body is read through the clock and the size limit."""
        response.stream = _guarded_class(response)(response.stream, self)


_GUARDS: dict[type, type] = {}


def _guarded_class(response: Any) -> type:
    """A byte stream of the response's own HTTP library (it checks the class), guarding another."""
    library = importlib.import_module(type(response).__module__.split(".")[0])
    base = library.SyncByteStream
    if base not in _GUARDS:
        _GUARDS[base] = type("GuardedStream", (_Guarded, base), {})
    return _GUARDS[base]


class _Guarded:
    def __init__(self, inner: Any, clock: ReplyClock) -> None:
        self.inner = inner
        self.clock = clock

    def __iter__(self) -> Iterator[bytes]:
        size = 0
        self.clock.check()
        for chunk in self.inner:
            size += len(chunk)
            if size > MAX_REPLY_BYTES:
                raise ReplyTooLarge(f"the endpoint's reply is larger than {MAX_REPLY_BYTES >> 20} MB; "
                                    "it is not a chat completion")
            self.clock.check()
            yield chunk

    def close(self) -> None:
        self.inner.close()
