"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1 (ephemeral port).

It streams SSE like the real API (role chunk, content deltas, tool_call deltas with index/id/name
then argument fragments, finish_reason, a usage chunk, ``[DONE]``) over chunked HTTP/1.1, answers
non-streaming requests, can return HTTP errors (with Retry-After) and cut a stream mid-way, and
records every request. Replies are consumed in order, one per request.

    server = ScriptedServer([tool_reply(("read_file", {"path": "a.txt"})), text_reply("done")])
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Reply", "ScriptedServer", "text_reply", "tool_reply", "error_reply", "Recorded", "without_context"]


@dataclass
class Reply:
    content: str = ""
    tool_calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)
    finish_reason: str | None = None         # default: "tool_calls" if tool_calls else "stop"
    status: int = 200
    error_body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None             # close the connection after this many SSE events
    chunk_delay: float = 0.0                 # seconds between SSE events (slow streams)
    hang: float = 0.0                        # seconds to wait before answering at all
    reasoning: str = ""
    usage: dict[str, Any] | None = None
    cached_tokens: int | None = None         # sent as usage.prompt_tokens_details.cached_tokens
    chunk_size: int = 7                      # characters per content / argument fragment
    call_ids: list[str] | None = None        # ids to send for the tool calls (default: unique ones)
    empty_stream: bool = False               # a streaming request gets 200, a ping comment, then the end
    no_usage: bool = False                   # send no usage (a server ignoring stream_options.include_usage)


def text_reply(content: str, **kw: Any) -> Reply:
    return Reply(content=content, **kw)


def tool_reply(*calls: tuple[str, dict[str, Any] | str], content: str = "", **kw: Any) -> Reply:
    return Reply(content=content, tool_calls=list(calls), **kw)


def error_reply(status: int, message: str = "error", retry_after: str | None = None, **kw: Any) -> Reply:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return Reply(status=status, error_body={"error": {"message": message, "type": "test_error"}},
                 headers=headers, **kw)


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def conversation(self) -> list[dict[str, Any]]:
        """``messages`` without the project context axon puts in front of the first user message."""
        return [without_context(m) for m in self.messages]

    @property
    def tool_names(self) -> list[str]:
        return [t["function"]["name"] for t in self.body.get("tools", []) or []]

    @property
    def offered(self) -> dict[str, dict[str, Any]]:
        """Every function this request offers the model, by name: its ``tools``, and the tools
        described in its messages once activated (a local endpoint keeps the ``tools`` it was sent
        first, for its prefix cache)."""
        out = {t["function"]["name"]: t["function"] for t in self.body.get("tools") or []}
        for message in self.messages:
            content = message.get("content")
            if isinstance(content, str) and "now available too" in content and "<tools>\n" in content:
                block = content.split("<tools>\n", 1)[1].split("\n</tools>", 1)[0]
                for line in block.splitlines():
                    function = json.loads(line)
                    out[function["name"]] = function
        return out


def without_context(message: dict[str, Any]) -> dict[str, Any]:
    """A user message without a leading ``<context>…</context>`` block (axon's project context)."""
    content = message.get("content")
    if message.get("role") == "user" and isinstance(content, str) and content.startswith("<context>\n"):
        end = content.find("\n</context>\n\n")
        if end >= 0:
            return {**message, "content": content[end + len("\n</context>\n\n"):]}
    return message


Script = list[Reply | Callable[[dict[str, Any]], Reply]]


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class ScriptedServer:
    def __init__(self, script: Script | None = None, model: str = "test-model",
                 tls: ssl.SSLContext | None = None) -> None:
        self.script: Script = list(script or [])
        self.requests: list[Recorded] = []
        self.model = model
        self.gets: dict[str, Any] = {}          # GET path -> JSON payload (default: the model list)
        self.get_paths: list[str] = []          # every GET, in order
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._httpd = _QuietServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self.scheme = "http"
        if tls is not None:    # HTTPS: the handshake runs in accept(); a refused one drops that client
            self._httpd.socket = tls.wrap_socket(self._httpd.socket, server_side=True)
            self.scheme = "https"
        # serve_forever's default 0.5 s poll is what shutdown() waits for: half a second per test
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)

    # -- lifecycle -----------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}/v1"

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def add(self, *replies: Reply | Callable[[dict[str, Any]], Reply]) -> None:
        with self._lock:
            self.script.extend(replies)

    def wait_for_requests(self, n: int, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self.requests) < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"expected {n} requests, got {len(self.requests)}")
                self._cond.wait(left)

    # -- serving -------------------------------------------------------------------------------
    def _next(self, body: dict[str, Any], path: str, headers: dict[str, str]) -> Reply:
        with self._cond:
            self.requests.append(Recorded(path, headers, body))
            self._cond.notify_all()
            item = self.script.pop(0) if self.script else Reply(content="SCRIPT EXHAUSTED")
        return item(body) if callable(item) else item

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # /v1/models, or what ``gets`` says for the path
                server.get_paths.append(self.path)
                if self.path in server.gets:
                    self._send_json(200, json.dumps(server.gets[self.path]))
                    return
                payload = json.dumps({"object": "list", "data": [{"id": server.model, "object": "model"}]})
                self._send_json(200, payload)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length) if length else b"{}"
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                reply = server._next(body, self.path, dict(self.headers))
                if reply.hang:
                    time.sleep(reply.hang)
                if reply.status != 200:
                    raw = reply.error_body if isinstance(reply.error_body, str) else json.dumps(reply.error_body or {})
                    self._send_json(reply.status, raw, reply.headers)   # a str body is sent as is
                    return
                if body.get("stream"):
                    self._stream(reply, body)
                else:
                    self._send_json(200, json.dumps(server._completion(reply, body)))

            def _send_json(self, status: int, payload: str, headers: dict[str, str] | None = None) -> None:
                data = payload.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, reply: Reply, body: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                events = [] if reply.empty_stream else server._sse_events(reply, body)
                if reply.empty_stream:   # what llama-cpp-python sends when it cannot stream with tools
                    ping = b": ping\n\n"
                    self.wfile.write(f"{len(ping):x}\r\n".encode() + ping + b"\r\n")
                try:
                    for n, event in enumerate(events):
                        if reply.cut_after is not None and n >= reply.cut_after:
                            self.wfile.flush()
                            self.connection.shutdown(socket.SHUT_RDWR)
                            self.close_connection = True
                            return
                        data = f"data: {event}\n\n".encode()
                        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                        self.wfile.flush()
                        if reply.chunk_delay:
                            time.sleep(reply.chunk_delay)
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

        return Handler

    # -- payloads ------------------------------------------------------------------------------
    def _usage(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        if reply.usage:
            usage = dict(reply.usage)
        else:
            prompt = len(json.dumps(body.get("messages", []))) // 4 + len(json.dumps(body.get("tools", []))) // 4
            completion = max(1, (len(reply.content) + len(json.dumps(reply.tool_calls))) // 4)
            usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        if reply.cached_tokens is not None:
            usage["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens}
        return usage

    def _finish(self, reply: Reply) -> str:
        return reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> str:
        return json.dumps({"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": int(time.time()),
                           "model": self.model,
                           "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]})

    def _sse_events(self, reply: Reply, body: dict[str, Any]) -> list[str]:
        n = reply.chunk_size
        events = [self._chunk({"role": "assistant", "content": ""})]
        for i in range(0, len(reply.reasoning), n):
            events.append(self._chunk({"reasoning_content": reply.reasoning[i:i + n]}))
        for i in range(0, len(reply.content), n):
            events.append(self._chunk({"content": reply.content[i:i + n]}))
        for index, (name, args) in enumerate(reply.tool_calls):
            text = args if isinstance(args, str) else json.dumps(args)
            call_id = reply.call_ids[index] if reply.call_ids else f"call_{len(self.requests)}_{index}"
            events.append(self._chunk({"tool_calls": [{"index": index, "id": call_id,
                                                       "type": "function",
                                                       "function": {"name": name, "arguments": ""}}]}))
            for i in range(0, len(text), n):
                events.append(self._chunk({"tool_calls": [{"index": index,
                                                           "function": {"arguments": text[i:i + n]}}]}))
        events.append(self._chunk({}, self._finish(reply)))
        if (body.get("stream_options") or {}).get("include_usage") and not reply.no_usage:
            events.append(json.dumps({"id": "chatcmpl-test", "object": "chat.completion.chunk",
                                      "created": int(time.time()), "model": self.model, "choices": [],
                                      "usage": self._usage(reply, body)}))
        events.append("[DONE]")
        return events

    def _completion(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
        if reply.tool_calls:
            message["tool_calls"] = [
                {"id": f"call_{len(self.requests)}_{i}", "type": "function",
                 "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
                for i, (name, args) in enumerate(reply.tool_calls)]
        return {"id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
                "model": self.model, "usage": self._usage(reply, body),
                "choices": [{"index": 0, "message": message, "finish_reason": self._finish(reply)}]}
