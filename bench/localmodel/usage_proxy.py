"""A counting proxy for servers that send no usage when they stream (llama-cpp-python): each chat
request is sent upstream without streaming, where the server reports its token usage, and the reply
goes back to axon as the stream it asked for (one content/tool-call chunk, the finish, the usage).
The model, its prompts and its replies are the server's own; only the transport changes.

    python bench/localmodel/usage_proxy.py --upstream http://127.0.0.1:8011 --port 8012
"""

from __future__ import annotations

import argparse
import json
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _chunk(base: dict[str, Any], delta: dict[str, Any], finish: str | None) -> bytes:
    body = {**base, "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def as_stream(reply: dict[str, Any]) -> bytes:
    """A non-streamed completion as the SSE stream of the same reply, usage last."""
    base = {k: reply.get(k) for k in ("id", "created", "model")}
    choice = (reply.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    delta: dict[str, Any] = {"role": "assistant", "content": message.get("content") or ""}
    if message.get("tool_calls"):
        delta["tool_calls"] = [{"index": i, **c} for i, c in enumerate(message["tool_calls"])]
    out = _chunk(base, delta, None) + _chunk(base, {}, choice.get("finish_reason") or "stop")
    if reply.get("usage"):
        out += b"data: " + json.dumps({**base, "object": "chat.completion.chunk", "choices": [],
                                       "usage": reply["usage"]}).encode() + b"\n\n"
    return out + b"data: [DONE]\n\n"


def handler(upstream: str) -> type[BaseHTTPRequestHandler]:
    class Proxy(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _forward(self, method: str, body: bytes | None) -> tuple[int, bytes, str]:
            req = urllib.request.Request(upstream + self.path, data=body, method=method,
                                         headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=3600) as r:
                    return r.status, r.read(), r.headers.get("Content-Type", "application/json")
            except urllib.error.HTTPError as e:
                return e.code, e.read(), e.headers.get("Content-Type", "application/json")

        def _send(self, status: int, data: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._send(*self._forward("GET", None))

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            streamed = bool(body.get("stream"))
            body.pop("stream_options", None)
            status, data, kind = self._forward("POST", json.dumps({**body, "stream": False}).encode())
            if status != 200 or not streamed:
                self._send(status, data, kind)
                return
            self._send(200, as_stream(json.loads(data)), "text/event-stream")

    return Proxy


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--upstream", required=True, help="the model server, e.g. http://127.0.0.1:8011")
    p.add_argument("--port", type=int, default=8012)
    args = p.parse_args()
    ThreadingHTTPServer(("127.0.0.1", args.port), handler(args.upstream.rstrip("/"))).serve_forever()


if __name__ == "__main__":
    main()
