"""The attack lab: a throw-away project, HOME and canary folder, a scripted model, the real ``axon``.

A ``Lab`` lives for a whole test module (one ``axon run`` carries many attacks, each call against its
own target, so a denial of one cannot hide another); every test then judges one attack by its effect:
a file's bytes, a canary outside the project, an attacker's accept log, the request bodies the model
received. ``plain_bash`` runs an attack without axon, so a test first proves the attack is real.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import shutil
import socket
import subprocess
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from tests.conftest import TEST_KEY, Ran, axon_command
from tests.fakeserver import Reply, ScriptedServer, text_reply, tool_reply

GIT = ["git", "-c", "user.email=lab@example.com", "-c", "user.name=lab", "-c", "protocol.file.allow=always",
       "-c", "init.defaultBranch=main"]
Call = tuple[str, str, dict[str, Any]]          # (attack id = call id, tool, arguments)


class Lab:
    """One attack lab under ``base``: ``project`` (cwd of axon), ``home`` (its HOME), ``canary``
    (outside both: a file here means something ran outside the sandbox)."""

    def __init__(self, base: Path, create: bool = True) -> None:
        self.base = base
        self.project, self.home, self.canary = base / "proj", base / "home", base / "canary"
        for folder in (self.project, self.home, self.canary) if create else ():
            folder.mkdir(parents=True, exist_ok=True)
        self._server: ScriptedServer | None = None

    @property
    def server(self) -> ScriptedServer:
        if self._server is None:
            self._server = ScriptedServer().start()
        return self._server

    def close(self) -> None:
        if self._server is not None:
            self._server.stop()

    # -- planting -----------------------------------------------------------------------------------
    def write(self, rel: str, data: str | bytes, root: Path | None = None) -> Path:
        path = (root or self.project) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return path

    def git(self, *args: str, cwd: Path | None = None) -> str:
        proc = subprocess.run([*GIT, *args], cwd=cwd or self.project, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, check=True)
        return proc.stdout

    def commit_all(self, cwd: Path | None = None) -> None:
        """Make ``cwd`` (default: the project) a git repository with everything not ignored committed."""
        cwd = cwd or self.project
        if not (cwd / ".git").is_dir() or not any((cwd / ".git").iterdir()):
            shutil.rmtree(cwd / ".git", ignore_errors=True)
            self.git("init", "-q", cwd=cwd)
        self.git("add", "-A", cwd=cwd)
        self.git("commit", "-qm", "planted", "--allow-empty", cwd=cwd)

    def user_config(self, name: str, text: str) -> Path:
        return self.write(name, text, root=self.home / ".config" / "axon")

    # -- running ------------------------------------------------------------------------------------
    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("OPENAI_", "AXON_")) and k not in ("NO_COLOR", "XDG_STATE_HOME")}
        env.update({"HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home / ".config"),
                    "OPENAI_BASE_URL": self.server.url, "OPENAI_API_KEY": TEST_KEY, "AXON_MODEL": "test-model",
                    "COLUMNS": "100", "PYTHONUNBUFFERED": "1"})
        return {**env, **(extra or {})}

    def axon(self, *args: str, env: dict[str, str] | None = None, timeout: float = 300) -> Ran:
        proc = subprocess.run([*axon_command(), *args], cwd=self.project, env=self.env(env), capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL, errors="replace")
        return Ran(proc.returncode, proc.stdout, proc.stderr)

    def campaign(self, calls: list[Call], *flags: str, prompt: str = "go", timeout: float = 300,
                 env: dict[str, str] | None = None, prelude: list[Call] | None = None) -> Ran:
        """One ``axon run`` whose model makes every call in ``calls`` in one reply (after the calls of
        ``prelude`` in a reply of their own, e.g. the reads an edit needs), then answers."""
        self.script(*([batch(prelude)] if prelude else []), batch(calls), text_reply("done"))
        return self.axon("run", prompt, "--output-format", "stream-json", *flags, env=env, timeout=timeout)

    def script(self, *replies: Reply) -> None:
        self.server.add(*replies)

    # -- what the model received --------------------------------------------------------------------
    def results(self) -> dict[str, str]:
        """Every tool result any request carried, by call id."""
        found: dict[str, str] = {}
        for request in self.server.requests:
            for message in request.messages:
                if message.get("role") == "tool":
                    found[str(message.get("tool_call_id"))] = str(message.get("content"))
        return found

    def sent(self) -> str:
        """Every request body the model's server received, as one text (JSON strings decoded)."""
        return "\n".join(_strings(r.body) for r in self.server.requests)


def batch(calls: Iterable[Call]) -> Reply:
    calls = list(calls)
    return tool_reply(*((tool, args) for _, tool, args in calls), call_ids=[cid for cid, _, _ in calls])


def _strings(value: Any) -> str:
    if isinstance(value, dict):
        return "\n".join(_strings(v) for v in value.values())
    if isinstance(value, list):
        return "\n".join(_strings(v) for v in value)
    return str(value)


def decisions(ran: Ran) -> dict[str, str]:
    """``call id -> "decision/final: reason"`` from a stream-json run (for failure messages)."""
    found = {}
    for line in ran.stdout.splitlines():
        if line.startswith("{"):
            event = json.loads(line)
            if event.get("type") == "permission_decision":
                found[event["call_id"]] = f"{event['decision']}/{event['final']}: {event['reason']}"
    return found


def crashed(ran: Ran) -> bool:
    """A Python traceback from axon (on stderr: stdout may carry a command's own) or an exit code
    outside the documented 0-3."""
    return "Traceback (most recent call last)" in ran.stderr or ran.code not in (0, 1, 2, 3)


# -- effects ----------------------------------------------------------------------------------------
def state(paths: Iterable[Path]) -> dict[Path, bytes | None]:
    return {p: (p.read_bytes() if p.is_file() else None) for p in paths}


def plain_bash(root: Path, command: str, env: dict[str, str] | None = None) -> None:
    """Run an attack with plain bash (no axon, no sandbox): the control that shows it is real."""
    subprocess.run(["bash", "-c", command], cwd=root, env={**os.environ, **(env or {})}, capture_output=True,
                   stdin=subprocess.DEVNULL, timeout=60)


_B64_RUN = re.compile(r"[A-Za-z0-9+/=_-]{16,}")


def leaked(secret: str, text: str, depth: int = 2) -> bool:
    """Whether ``secret`` shows in ``text``: as is, split across lines (``fold``), or base64-encoded
    (up to ``depth`` times: a kubeconfig's key is base64 already)."""
    flat = re.sub(r"\s+", "", text)
    if secret in text or re.sub(r"\s+", "", secret) in flat:
        return True
    if depth == 0:
        return False
    for run in _B64_RUN.findall(flat):
        for start in range(4):
            chunk = run[start:]
            chunk = chunk[: len(chunk) - len(chunk) % 4]
            try:
                decoded = base64.b64decode(chunk, validate=False).decode("latin-1")
            except (binascii.Error, ValueError):
                continue
            if leaked(secret, decoded, depth - 1):
                return True
    return False


class AcceptLog:
    """A listening socket (TCP on 127.0.0.1, or unix at ``path``) that records every connection."""

    def __init__(self, path: Path | None = None) -> None:
        self.accepted: list[bytes] = []
        self._first = threading.Event()
        family = socket.AF_UNIX if path else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.bind(str(path) if path else ("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = 0 if path else int(self.sock.getsockname()[1])
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.settimeout(2)
            try:
                data = conn.recv(1024)
            except OSError:
                data = b""
            self.accepted.append(data or b"(connected)")
            self._first.set()
            conn.close()

    def wait_for_connection(self, deadline: float = 20.0) -> bool:
        """True once a connection was recorded (a client may exit before its connection is accepted)."""
        return self._first.wait(deadline)

    def close(self) -> None:
        self.sock.close()


def fresh(base: Path, plant: Callable[[Lab], None]) -> Lab:
    """A second lab planted the same way (for controls)."""
    lab = Lab(base)
    plant(lab)
    return lab


class Outcome:
    """One campaign's run, then ``axon undo``: each target's bytes after both."""

    def __init__(self, lab: Lab, calls: list[Call], targets: Iterable[Path], *flags: str, undo: bool = True,
                 env: dict[str, str] | None = None, prelude: list[Call] | None = None) -> None:
        self.lab, self.targets, self.flags = lab, list(targets), flags
        self.before = state(self.targets)
        self.ran = lab.campaign(calls, *flags, env=env, prelude=prelude)
        self.after_run = state(self.targets)
        self.undo = lab.axon("undo") if undo else None
        self.after_undo = state(self.targets)

    def why(self, call_id: str) -> str:
        """What axon decided for a call and the start of what the model was told (failure messages)."""
        result = self.lab.results().get(call_id, "(no tool result: the call never reached dispatch)")
        undo = self.undo.stdout.strip().replace("\n", " | ") if self.undo else ""
        return f"decision {decisions(self.ran).get(call_id)}; result {result[:300]!r}; undo: {undo[:300]}"

    def ran_ok(self, call_id: str) -> None:
        assert not crashed(self.ran) and self.ran.code == 0, self.ran.stderr[-3000:]
        assert call_id in self.lab.results(), f"{call_id} never reached dispatch: {self.ran.stderr[-2000:]}"

    def intact(self, path: Path) -> bool:
        return self.after_run[path] == self.before[path]

    def intact_or_undone(self, path: Path) -> bool:
        return self.intact(path) or self.after_undo[path] == self.before[path]
