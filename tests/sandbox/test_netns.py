"""The session's shared network namespace (``machinery/sandbox/netns.py``) with real bwrap and nsenter: as root
and as an unprivileged user (``setpriv`` to nobody), a server one sandboxed command starts answers the
next one; the commands inside keep the caller's uid and no capabilities; only ``lo`` is there; without
``nsenter`` each command unshares its own network as before."""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from axon_cli.machinery.sandbox import netns
from axon_cli.machinery.sandbox.bwrap import wrap_command
from tests.sandbox.test_sandbox import needs_namespaces

NETNS = Path(netns.__file__)
SYSTEM_PYTHON = "/usr/bin/python3"

SCRIPT = textwrap.dedent("""
    import importlib.util, shutil, socket, subprocess, sys
    spec = importlib.util.spec_from_file_location("netns", sys.argv[1])
    netns = importlib.util.module_from_spec(spec); spec.loader.exec_module(netns)
    bwrap = shutil.which("bwrap")
    join = netns.prefix(bwrap)
    assert join, "no shared namespace"
    flags = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--unshare-pid",
             "--die-with-parent"]
    box, own = [*join, bwrap, *flags, "--"], [bwrap, *flags, "--unshare-net", "--"]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
    server = subprocess.Popen(box + [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                                     "--directory", "/"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    fetch = ("import sys, time, urllib.request as u\\n"
             "for _ in range(300):\\n"
             "    try: print(u.urlopen(sys.argv[1], timeout=5).read().decode()[:300]); break\\n"
             "    except OSError: time.sleep(0.1)\\n")
    probe = ["sh", "-c", "id -u; grep CapEff /proc/self/status; grep -c : /proc/net/dev; grep -o '^ *lo:' /proc/net/dev"]
    run = lambda argv: subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout
    print(" ".join(join))
    print("SHARED", run(box + probe).split())
    print("OWN", run(own + probe).split())
    print(run(box + [sys.executable, "-c", fetch, f"http://127.0.0.1:{port}/"]))
    server.kill(); server.wait()
""")


def _shared_run(*prefix: str) -> list[str]:
    done = subprocess.run([*prefix, SYSTEM_PYTHON, "-c", SCRIPT, str(NETNS)], capture_output=True, text=True,
                          timeout=120, cwd="/")
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _check(out: list[str], uid: int) -> None:
    shared, own = out[1].split(" ", 1)[1], out[2].split(" ", 1)[1]
    assert shared == own, out                                   # the same uid and capabilities as before …
    assert shared.startswith(f"['{uid}', 'CapEff:',"), out      # … the caller's uid
    assert shared.endswith("'1', 'lo:']"), out                  # one interface: lo
    assert "Directory listing for /" in "\n".join(out[3:]), out   # the other command's server answered


needs_system_python = pytest.mark.skipif(not os.access(SYSTEM_PYTHON, os.X_OK), reason="no /usr/bin/python3")


@needs_namespaces
@needs_system_python
def test_a_server_of_one_command_answers_the_next_as_root_or_as_this_user() -> None:
    out = _shared_run()
    assert "--net=/proc/" in out[0]
    _check(out, os.getuid())


@needs_namespaces
@needs_system_python
@pytest.mark.skipif(os.getuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv")
def test_unprivileged_it_joins_its_own_user_namespace_and_keeps_the_uid() -> None:
    if not all(os.stat(p).st_mode & 0o005 == 0o005 for p in [*NETNS.parents][:-1] + [NETNS.parent]):
        pytest.skip(f"{NETNS} is not readable by other users here")
    out = _shared_run("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--reset-env")
    assert "--user=/proc/" in out[0] and "--preserve-credentials" in out[0]
    _check(out, 65534)


@needs_namespaces
def test_without_nsenter_each_command_unshares_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    only = tmp_path / "bin"
    only.mkdir()
    (only / "bwrap").symlink_to(shutil.which("bwrap") or "/usr/bin/bwrap")   # a bwrap path of its own
    monkeypatch.setenv("PATH", str(only))
    assert netns.prefix(str(only / "bwrap")) is None
    argv = wrap_command(["true"], "workspace-write", tmp_path, bwrap=str(only / "bwrap"))
    assert argv[0] == str(only / "bwrap") and "--unshare-net" in argv
