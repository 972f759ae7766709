"""A local web server for the ``web_fetch`` tests: routes by path, and a log of every request."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Route = Callable[["WebServer"], tuple[int, dict[str, str], bytes]]


@dataclass
class Logged:
    path: str
    headers: dict[str, str]


@dataclass
class WebServer:
    routes: dict[str, Route] = field(default_factory=dict)
    log: list[Logged] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)   # a blocking route waits on it
    _httpd: Any = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def start(self) -> WebServer:
        web = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                web.log.append(Logged(self.path, dict(self.headers)))
                route = web.routes.get(self.path)
                status, headers, body = route(web) if route else (404, {"Content-Type": "text/plain"}, b"nope")
                self.send_response(status)
                for name, value in {"Content-Length": str(len(body)), **headers}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()


def page(body: str, ctype: str = "text/html; charset=utf-8") -> Route:
    return lambda _web: (200, {"Content-Type": ctype}, body.encode())


def redirect(location: str, status: int = 302) -> Route:
    return lambda _web: (status, {"Location": location}, b"")


def blocking(web: WebServer) -> tuple[int, dict[str, str], bytes]:
    """Answers only once the test releases it (after axon has given up)."""
    web.release.wait(60)
    return 200, {"Content-Type": "text/plain"}, b"too late"
