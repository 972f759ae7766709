"""Diagnostics from a language server on PATH, plain LSP over stdio (no client library).

For a file no ``[diagnostics]`` glob matches, whose kind has a known server (``SERVERS``) found on
PATH, and only while a sandbox is on: language servers load project files that can be code
(TypeScript plugins named in tsconfig.json, a crate's build.rs), so they run where the model's
``bash`` would — inside the session's sandbox — and never without one. ``diagnostics_lsp = false``
turns this off.

One short-lived server per edit: ``initialize``, the old text opened (its diagnostics: what was there
before), the new text as a change (its diagnostics), ``shutdown``; the whole exchange within
``diagnostics_timeout``, the process group killed at the end. Errors and warnings the new text has and
the old one had not (same message on the same source line) are reported, as the Python check does.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from axon_cli.kernel.loaders import json_value
from axon_cli.tools.builtin.files.diagnostics import Problem, new_problems, report
from axon_cli.tools.spec import CallEnv, ToolContext

if TYPE_CHECKING:
    from axon_cli.machinery.sandbox import SandboxStatus

__all__ = ["SERVERS", "server_for", "check_with_server"]

_TS = ("typescript-language-server", "--stdio")
_CLANGD, _SH = ("clangd",), ("bash-language-server", "start")
SERVERS: dict[str, tuple[str, tuple[str, ...]]] = {    # suffix -> (LSP language id, server command)
    ".ts": ("typescript", _TS), ".tsx": ("typescriptreact", _TS), ".js": ("javascript", _TS),
    ".jsx": ("javascriptreact", _TS), ".go": ("go", ("gopls",)), ".rs": ("rust", ("rust-analyzer",)),
    ".c": ("c", _CLANGD), ".h": ("c", _CLANGD), ".cc": ("cpp", _CLANGD), ".cpp": ("cpp", _CLANGD),
    ".hpp": ("cpp", _CLANGD), ".sh": ("shellscript", _SH), ".bash": ("shellscript", _SH),
}
SETTLE = 0.3      # seconds to wait for a later, fuller publish after the first one


def server_for(path: Path) -> tuple[str, list[str]] | None:
    """The language id and the server's argv for ``path``, when that server is on PATH."""
    entry = SERVERS.get(path.suffix)
    program = shutil.which(entry[1][0]) if entry else None
    return (entry[0], [program, *entry[1][1:]]) if entry and program else None


def check_with_server(path: Path, rel: str, old_text: str, new_text: str, created: bool, ctx: ToolContext,
                      status: SandboxStatus | None) -> str:
    """What a language server says the edit introduced ("" = nothing new, no server, no sandbox, or
    it failed: never raises)."""
    try:
        return _check(path, rel, old_text, new_text, created, ctx, status)
    except Exception:
        return ""


def _check(path: Path, rel: str, old_text: str, new_text: str, created: bool, ctx: ToolContext,
           status: SandboxStatus | None) -> str:
    if status is None or not getattr(ctx.settings, "diagnostics_lsp", True):
        return ""
    from axon_cli.machinery import sandbox
    from axon_cli.machinery.sandbox import outside
    from axon_cli.tools.builtin.bash.bash_tool import sandbox_mode

    mode = sandbox_mode(status, str(getattr(ctx.settings, "mode", "")), CallEnv())
    found = server_for(path)
    if mode == "off" or found is None:
        return ""
    language, argv = found
    sandbox.check_available(mode)
    from axon_cli.machinery.sandbox.child_env import child_env
    from axon_cli.tools.builtin.bash.processes import RUN_MARKER, kill_tree

    run_id = uuid.uuid4().hex
    env = child_env()
    env[RUN_MARKER] = run_id
    deadline = time.monotonic() + float(getattr(ctx.settings, "diagnostics_timeout", 10.0) or 10.0)
    with sandbox.confine(argv, mode, ctx.project_root, home=env.get("HOME"),
                         hide=list(getattr(ctx.settings, "sandbox_hide", None) or []),
                         allow_sockets=list(getattr(ctx.settings, "sandbox_allow_sockets", None) or [])) as wrapped:
        proc = outside.popen(wrapped, outside.inside(mode), cwd=ctx.project_root, env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            before, after = _Session(proc, deadline, ctx).run(path, language, old_text, new_text, created)
        finally:
            kill_tree(proc, run_id)
            for pipe in (proc.stdin, proc.stdout):
                with contextlib.suppress(OSError):
                    pipe.close() if pipe else None
    if after is None or (before is None and not created):
        return ""
    name = os.path.basename(argv[0])
    return report(rel, new_problems(before or [], after), f"language server {name}")


class _Session:
    """One LSP conversation; every wait ends at ``deadline``."""

    def __init__(self, proc: subprocess.Popen[bytes], deadline: float, ctx: ToolContext) -> None:
        self.proc, self.deadline, self.ctx = proc, deadline, ctx
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.next_id = 0
        self.ended = False
        assert proc.stdout is not None
        threading.Thread(target=_read_messages, args=(proc.stdout, self.inbox), daemon=True).start()

    def run(self, path: Path, language: str, old: str, new: str,
            created: bool) -> tuple[list[Problem] | None, list[Problem] | None]:
        root = self.ctx.project_root.resolve().as_uri()
        init = {"processId": os.getpid(), "rootUri": root, "workspaceFolders": [{"uri": root, "name": "project"}],
                "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True}}}}
        if self.request("initialize", init) is None:
            return None, None
        self.notify("initialized", {})
        uri = path.resolve().as_uri()
        first = new if created else old
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": 1,
                                                              "text": first}})
        before = self.diagnostics(uri, first)
        after = before if created else None
        if not created and before is not None:
            self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                   "contentChanges": [{"text": new}]})
            after = self.diagnostics(uri, new, version=2)
        with contextlib.suppress(OSError, ValueError):
            self.request("shutdown", None, wait=min(1.0, self.deadline - time.monotonic()))
            self.notify("exit", None)
        return ([] if created else before), after

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: Any, wait: float | None = None) -> Any:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        until = self.deadline if wait is None else time.monotonic() + wait
        while (message := self.receive(until)) is not None:
            if message.get("id") == self.next_id and "method" not in message:
                return message.get("result", {}) if "error" not in message else None
        return None

    def receive(self, until: float) -> dict[str, Any] | None:
        """The next message from the server (its requests answered on the way), or None at ``until``."""
        while (left := min(until, self.deadline) - time.monotonic()) > 0 and not self.ctx.cancel.is_set():
            if self.ended:
                return None
            try:
                message = self.inbox.get(timeout=min(left, 0.2))
            except queue.Empty:
                continue
            if message is None:
                self.ended = True
                return None
            if "method" in message and "id" in message:     # a request of the server's: answer it plainly
                items = (message.get("params") or {}).get("items")
                self.send({"id": message["id"], "result": [None] * len(items) if isinstance(items, list) else None})
                continue
            return message
        return None

    def diagnostics(self, uri: str, text: str, version: int | None = None) -> list[Problem] | None:
        """The problems the server publishes for ``uri`` (the last publish within ``SETTLE`` of the first)."""
        latest: list[dict[str, Any]] | None = None
        until = self.deadline
        while (message := self.receive(until)) is not None:
            params = message.get("params") or {}
            if message.get("method") != "textDocument/publishDiagnostics" or params.get("uri") != uri:
                continue
            if version is not None and params.get("version") not in (None, version):
                continue
            latest = list(params.get("diagnostics") or [])
            until = min(until, time.monotonic() + SETTLE)
        return None if latest is None else [_problem(d, text) for d in latest if d.get("severity", 1) <= 2]


def _problem(diagnostic: dict[str, Any], text: str) -> Problem:
    start = (diagnostic.get("range") or {}).get("start") or {}
    line, column = int(start.get("line", 0)) + 1, int(start.get("character", 0)) + 1
    lines = text.splitlines()
    source = lines[line - 1] if 0 < line <= len(lines) else ""
    code = f" [{diagnostic['code']}]" if diagnostic.get("code") not in (None, "") else ""
    return Problem(line, column, " ".join(str(diagnostic.get("message", "")).split()) + code, source)


def _read_messages(stream: IO[bytes], inbox: queue.Queue[dict[str, Any] | None]) -> None:
    """Frames from the server's stdout into ``inbox``; None when it ends or speaks no LSP."""
    try:
        while True:
            length = None
            while (header := stream.readline()) not in (b"\r\n", b"\n"):
                if not header:
                    return
                name, _, value = header.decode("ascii", "replace").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if length is None or length > 16 * 1024 * 1024:
                return
            message = json_value(stream.read(length))
            if isinstance(message, dict):
                inbox.put(message)
    except (OSError, ValueError):
        return
    finally:
        inbox.put(None)
