"""A minimal language server over stdio for the diagnostics tests: every line containing BAD is an
error. On start it touches ``ran-inside`` in the working directory and the path in
``FAKE_LS_CANARY`` (outside the project), so a test can tell whether and where it ran."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path


def read() -> dict | None:
    length = 0
    while (line := sys.stdin.buffer.readline()) not in (b"\r\n", b""):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(sys.stdin.buffer.read(length)) if length else None


def send(message: dict) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def publish(uri: str, version: int, text: str) -> None:
    found = [{"range": {"start": {"line": n, "character": 0}, "end": {"line": n, "character": 3}},
              "severity": 1, "source": "fake", "message": "bad word"}
             for n, line in enumerate(text.splitlines()) if "BAD" in line]
    send({"method": "textDocument/publishDiagnostics", "params": {"uri": uri, "version": version, "diagnostics": found}})


def main() -> None:
    Path("ran-inside").touch()
    with contextlib.suppress(OSError):     # refused inside the sandbox (read-only outside the project)
        Path(os.environ["FAKE_LS_CANARY"]).touch()
    while (message := read()) is not None:
        method, params = message.get("method"), message.get("params") or {}
        if method == "initialize":
            send({"id": message["id"], "result": {"capabilities": {"textDocumentSync": 1}}})
            send({"id": "cfg", "method": "workspace/configuration", "params": {"items": [{}]}})
        elif method == "textDocument/didOpen":
            doc = params["textDocument"]
            publish(doc["uri"], doc["version"], doc["text"])
        elif method == "textDocument/didChange":
            publish(params["textDocument"]["uri"], params["textDocument"]["version"], params["contentChanges"][-1]["text"])
        elif method == "shutdown":
            send({"id": message["id"], "result": None})
        elif method == "exit":
            return


if __name__ == "__main__":
    main()
