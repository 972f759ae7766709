"""Unix sockets of user services are unreachable from the sandbox unless the user's config lets one
through — through the real ``axon run`` with bubblewrap. Servers listen on the host; the tests
assert on what they accepted, never on axon's wording."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakeserver import text_reply, tool_reply
from tests.sandbox.test_sandbox import needs_namespaces

pytestmark = needs_namespaces

CONNECT = """
import socket, sys
for target in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(target.replace('@', '\\0', 1) if target.startswith('@') else target)
        s.sendall(b'hello')
        print(target, 'connected')
    except OSError as e:
        print(target, 'failed:', e)
    finally:
        s.close()
"""


class Listener:
    """A unix socket server on the host; ``accepted()`` drains its queue (a connection made and
    closed before anyone accepted it is still there), so no waiting is needed."""

    def __init__(self, address: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(address)
        self.sock.listen(16)
        self.sock.setblocking(False)

    def accepted(self) -> int:
        count = 0
        while True:
            try:
                conn, _ = self.sock.accept()
            except BlockingIOError:
                return count
            conn.close()
            count += 1


@pytest.fixture
def listeners(project: Path) -> Iterator[dict[str, Listener]]:
    home = project.parent / "home"
    paths = {"docker": home / ".docker" / "run" / "docker.sock",     # a known place
             "deep": home / ".local" / "app" / "agent.sock",           # found by the walk of $HOME
             "runtime": home / ".cache" / "rt" / "bus"}                # $XDG_RUNTIME_DIR (.cache: not walked)
    made: dict[str, Listener] = {}
    for name, path in paths.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        assert len(str(path).encode()) < 108, path                      # sun_path: 108 bytes with the NUL
        made[name] = Listener(str(path))
    made["abstract"] = Listener(f"\0axon-test-{uuid.uuid4().hex}")
    try:
        yield made
    finally:
        for listener in made.values():
            listener.sock.close()


def _targets(listeners: dict[str, Listener]) -> list[str]:
    out = []
    for listener in listeners.values():
        name = listener.sock.getsockname()
        out.append("@" + name[1:].decode() if isinstance(name, bytes) else name)
    return out


def _run_connect(server, run_axon, listeners: dict[str, Listener], tmp_path: Path, *args: str) -> str:  # type: ignore[no-untyped-def]
    argv = " ".join(f"'{t}'" for t in _targets(listeners))
    server.add(tool_reply(("bash", {"command": f"python3 - {argv} <<'EOF'\n{CONNECT}\nEOF"})), text_reply("done"))
    r = run_axon("run", "connect", "--yes", *args, env={"XDG_RUNTIME_DIR": str(tmp_path / "home" / ".cache" / "rt")})
    assert r.code == 0, r.stderr
    return str(server.requests[-1].messages[-1]["content"])


def test_user_service_sockets_are_unreachable(server, run_axon, listeners, tmp_path: Path) -> None:
    out = _run_connect(server, run_axon, listeners, tmp_path)
    assert {name: lst.accepted() for name, lst in listeners.items()} == {name: 0 for name in listeners}, out


def test_allow_sockets_in_the_users_config_lets_one_through(server, run_axon, listeners, project: Path,
                                                             tmp_path: Path) -> None:
    config = project.parent / "home" / ".config" / "axon"
    config.mkdir(parents=True)
    (config / "config.toml").write_text(                  # one in a known place, one in the runtime dir
        'sandbox_allow_sockets = ["~/.docker/run/docker.sock", "~/.cache/rt/bus"]\n')
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text(       # a project cannot open one
        'sandbox_allow_sockets = ["~/.local/app/agent.sock"]\n')
    out = _run_connect(server, run_axon, listeners, tmp_path, "--trust")
    counts = {name: lst.accepted() for name, lst in listeners.items()}
    assert counts == {"docker": 1, "deep": 0, "runtime": 1, "abstract": 0}, out
