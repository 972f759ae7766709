"""A hostile OpenAI-compatible endpoint on 127.0.0.1: every ``POST`` is answered by one scripted
misbehaviour (raw bytes on the socket: garbage headers, bodies that are not JSON, broken SSE, HTML
from a proxy, silence, a reset), while ``GET /models`` answers like a normal server.

    with HostileEndpoint(SCENARIOS["keepalive_forever"]) as ep:
        run axon with OPENAI_BASE_URL=ep.url

A scenario is a function of a ``Wire`` (the accepted connection, the request already read). Endless
ones stop when the client hangs up or the endpoint is closed. ``requests`` counts the POSTs seen.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import socket
import struct
import threading
import time
from collections.abc import Callable

__all__ = ["HostileEndpoint", "Wire", "SCENARIOS", "chunk_event"]

PROXY_PAGE = (b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway"
              b"</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n")
SSE_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"


def chunk_event(payload: object) -> bytes:
    """One SSE ``data:`` event of a chat.completion.chunk (``payload``: the choices list, or raw text)."""
    if isinstance(payload, (bytes, str)):
        data = payload.encode() if isinstance(payload, str) else payload
    else:
        data = json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "test-model",
                           "choices": payload}).encode()
    return b"data: " + data + b"\n\n"


def _choice(delta: dict[str, object], finish: str | None = None) -> list[dict[str, object]]:
    return [{"index": 0, "delta": delta, "finish_reason": finish}]


class Wire:
    """The accepted connection of one request."""

    def __init__(self, sock: socket.socket, stop: threading.Event, n: int = 0) -> None:
        self.sock = sock
        self.stop = stop
        self.n = n          # the POST's number (1 for the first)

    def send(self, data: bytes) -> bool:
        """Write ``data``; False once the client is gone or the endpoint is closing."""
        if self.stop.is_set():
            return False
        try:
            self.sock.sendall(data)
            return True
        except OSError:
            return False

    def chunk(self, data: bytes) -> bool:
        return self.send(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    def response(self, status: str, body: bytes, ctype: str = "application/json", extra: str = "") -> None:
        self.send(f"HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n{extra}"
                  f"Connection: close\r\n\r\n".encode() + body)

    def reset(self) -> None:
        """Close with RST (SO_LINGER 0): 'connection reset by peer' on the client."""
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()

    def idle(self, every: float = 0.5, data: bytes | None = None) -> None:
        """Until the client hangs up: send ``data`` (as a chunk) every ``every`` seconds, or nothing."""
        while not self.stop.wait(every):
            if data is not None and not self.chunk(data):
                return


def _json_error(status: str, message: str, extra: str = "") -> Callable[[Wire], None]:
    body = json.dumps({"error": {"message": message, "type": "test_error"}}).encode()
    return lambda w: w.response(status, body, extra=extra)


def _stream(*events: bytes, end: bool = True) -> Callable[[Wire], None]:
    def run(w: Wire) -> None:
        w.send(SSE_HEAD)
        for e in events:
            w.chunk(e)
        if end:
            w.send(b"0\r\n\r\n")
    return run


def _forever(w: Wire, event: bytes, every: float) -> None:
    """A stream that never ends and never says anything: ``event`` every ``every`` seconds."""
    if w.send(SSE_HEAD):
        w.idle(every, event)


def _truncated_chunk(w: Wire) -> None:
    w.send(SSE_HEAD + b"400\r\n" + chunk_event(_choice({"content": "par"})))   # announces 1 KiB, sends less
    w.sock.shutdown(socket.SHUT_RDWR)


def _reset_mid_stream(w: Wire) -> None:
    w.send(SSE_HEAD)
    w.chunk(chunk_event(_choice({"role": "assistant", "content": "Half an ans"})))
    time.sleep(0.2)
    w.reset()


def _huge_headers(w: Wire) -> None:
    w.send(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Pad: " + b"a" * 2_000_000 + b"\r\n\r\n")


def _hundred_mb(w: Wire) -> None:
    w.send(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n"
           b"Connection: close\r\n\r\n" + b'{"choices": [{"message": {"content": "')
    block = b"x" * 1_048_576
    for _ in range(100):
        if not w.send(block):
            return


def _never_answers(w: Wire) -> None:
    w.idle()


def _closes_at_once(w: Wire) -> None:
    w.sock.close()


def _accepts_then_redirects(w: Wire) -> None:
    w.send(b"HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:9/nowhere\r\nContent-Length: 0\r\n\r\n")


_DONE_TEXT = _stream(chunk_event(_choice({"role": "assistant", "content": "done"}, "stop")), b"data: [DONE]\n\n")

SCENARIOS: dict[str, Callable[[Wire], None]] = {
    "retry_after_garbage": _json_error("429 Too Many Requests", "slow down", "Retry-After: soon\r\n"),
    "retry_after_huge": _json_error("503 Service Unavailable", "later", "Retry-After: 99999999999999999999\r\n"),
    "not_json_200": lambda w: w.response("200 OK", b"this is not json {", ctype="application/json"),
    "malformed_sse": _stream(chunk_event(b"{not json")),
    "keepalive_forever": lambda w: _forever(w, b": keep-alive\n\n", 0.3),
    "proxy_502_html": lambda w: w.response("502 Bad Gateway", PROXY_PAGE, ctype="text/html"),
    "html_401": lambda w: w.response("401 Unauthorized", b"<!DOCTYPE html><html><head><title>Sign in - Corp SSO"
                                     b"</title></head><body><p>Please log in.</p></body></html>", ctype="text/html"),
    "html_403_untitled": lambda w: w.response("403 Forbidden", b"<html><body>\n\n  <h1>Access denied</h1>\n"
                                              b"<p>" + b"blocked " * 200 + b"</p></body></html>", ctype="text/html"),
    "truncated_chunked": _truncated_chunk,
    "reset_mid_stream": _reset_mid_stream,
    "no_done_no_finish": _stream(chunk_event(_choice({"role": "assistant", "content": "cut"}))),
    "done_before_choice": _stream(b"data: [DONE]\n\n"),
    "empty_choices_forever": lambda w: _forever(w, chunk_event([]), 0.2),
    "null_choices": _stream(chunk_event(b'{"id": "c", "object": "chat.completion.chunk", "choices": null}'),
                            b"data: [DONE]\n\n"),
    "content_type_lies": lambda w: w.response("200 OK", chunk_event(_choice({"content": "hi"}, "stop")),
                                              ctype="application/json"),
    "gzip_garbage": lambda w: w.response("200 OK", b"\x1f\x8b\x08\x00garbage-not-deflate" * 10,
                                         ctype="text/event-stream", extra="Content-Encoding: gzip\r\n"),
    "gzip_of_html": lambda w: w.response("500 Internal Server Error", gzip.compress(PROXY_PAGE), ctype="text/html",
                                         extra="Content-Encoding: gzip\r\n"),
    "huge_headers": _huge_headers,
    "hundred_mb_body": _hundred_mb,
    "invalid_utf8": _stream(chunk_event(b'{"choices": [{"index": 0, "delta": {"content": "\xff\xfe\xc3"}, '
                                        b'"finish_reason": "stop"}]}'), b"data: [DONE]\n\n"),
    "tool_args_not_string": lambda w: _stream(
        chunk_event(_choice({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                                             "function": {"name": "list_files", "arguments": {"path": "."}}}]})),
        chunk_event(_choice({}, "tool_calls")), b"data: [DONE]\n\n")(w) if w.n == 1 else _DONE_TEXT(w),
    "redirect_to_nowhere": _accepts_then_redirects,
    "never_answers": _never_answers,
    "closes_at_once": _closes_at_once,
    "garbage_status_line": lambda w: w.send(b"HTTX/9 abc\r\n\r\n"),
    "json_array_200": lambda w: w.response("200 OK", b"[1, 2, 3]"),
    "sse_data_array": _stream(chunk_event(b"[1, 2]"), chunk_event(b'"a string"'), b"data: [DONE]\n\n"),
    "sse_wrong_shapes": _stream(chunk_event(b'{"choices": "abc", "usage": "lots"}'),
                                chunk_event(b'{"choices": [{"delta": "text", "finish_reason": 7}]}'),
                                chunk_event(b'{"choices": [{"delta": {"content": 5, "tool_calls": {"a": 1}}}]}'),
                                b"data: [DONE]\n\n"),
    "error_event_in_stream": _stream(chunk_event(b'{"error": {"message": "overloaded, try later"}}')),
}


class HostileEndpoint:
    def __init__(self, scenario: Callable[[Wire], None]) -> None:
        self.scenario = scenario
        self.requests = 0
        self.first_at: float | None = None      # time.monotonic() of the first POST
        self._stop = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._threads: list[threading.Thread] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/v1"

    def __enter__(self) -> HostileEndpoint:
        t = threading.Thread(target=self._accept, daemon=True)
        t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._listener.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                sock, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(sock,), daemon=True).start()

    def _serve(self, sock: socket.socket) -> None:
        try:
            head, body_len = _read_head(sock)
            if head.startswith(b"GET "):
                Wire(sock, self._stop).response("200 OK", json.dumps(
                    {"object": "list", "data": [{"id": "test-model", "object": "model"}]}).encode())
                return
            _read_exactly(sock, body_len)
            self.requests += 1
            if self.first_at is None:
                self.first_at = time.monotonic()
            self.scenario(Wire(sock, self._stop, self.requests))
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                sock.close()


def _read_head(sock: socket.socket) -> tuple[bytes, int]:
    data = b""
    while b"\r\n\r\n" not in data:
        more = sock.recv(65536)
        if not more:
            raise OSError("client went away")
        data += more
    head, _, rest = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    return head, length - len(rest)


def _read_exactly(sock: socket.socket, n: int) -> None:
    while n > 0:
        more = sock.recv(min(n, 65536))
        if not more:
            return
        n -= len(more)
