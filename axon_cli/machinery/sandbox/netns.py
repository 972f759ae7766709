"""One loopback-only network namespace per axon process, shared by all its sandboxed commands.

Each sandboxed command used to get its own network namespace, so a server a background job started
could not be reached by the next command. Now the first sandboxed command makes one namespace:
a short-lived ``bwrap --unshare-net`` (its own user namespace too when axon is not root) whose
namespaces axon opens and keeps open; the holder then exits. Every sandboxed command joins that
namespace (``nsenter --net=…`` and, unprivileged, ``--user=…`` before ``bwrap``, which then runs
without ``--unshare-net``). Inside there is only ``lo`` (bubblewrap brings it up): no outside
network, as before. Nothing keeps it alive but axon's descriptors and the processes inside it, which
end with the session, so it ends with axon.

Where that cannot be made or joined (no ``nsenter``, a kernel that refuses), each command keeps its
own namespace as before: ``prefix`` returns None.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import threading
import time

__all__ = ["prefix", "active", "JOIN_TIMEOUT"]

JOIN_TIMEOUT = 10.0
_lock = threading.Lock()
_made: dict[str, list[str] | None] = {}     # bwrap path -> the nsenter prefix (None: could not)
_fds: list[int] = []                        # the namespaces' descriptors, open for axon's lifetime


def prefix(bwrap: str) -> list[str] | None:
    """The argv that puts ``bwrap`` into this process's shared network namespace (made on first
    use), or None when each command must unshare its own."""
    with _lock:
        if bwrap not in _made:
            _made[bwrap] = _make(bwrap)
        found = _made[bwrap]
        return list(found) if found else None


def active() -> bool:
    """Whether this process's sandboxed commands share a network namespace (one was made)."""
    with _lock:
        return any(_made.values())


def _make(bwrap: str) -> list[str] | None:
    nsenter = shutil.which("nsenter")
    if nsenter is None:
        return None
    pid = os.getpid()
    try:
        user, net = _hold(bwrap)
    except (OSError, ValueError, KeyError, TimeoutError):
        return None
    argv = [nsenter, f"--net=/proc/{pid}/fd/{net}"]
    if os.fstat(user).st_ino != os.stat("/proc/self/ns/user").st_ino:   # not root: join its user namespace too
        argv += [f"--user=/proc/{pid}/fd/{user}", "--preserve-credentials"]
    if not _works([*argv, bwrap]):
        os.close(user)
        os.close(net)
        return None
    _fds.extend((user, net))
    return argv


def _hold(bwrap: str) -> tuple[int, int]:
    """Start the holder, wait until its namespaces are set up (its shell says so), open them, let it go."""
    info_r, info_w = os.pipe()
    try:
        holder = subprocess.Popen(
            [bwrap, "--ro-bind", "/", "/", "--unshare-net", "--die-with-parent", "--info-fd", str(info_w),
             "--", "/bin/sh", "-c", "echo ready; read -r _"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, pass_fds=(info_w,),
            start_new_session=True)
    finally:
        os.close(info_w)
    try:
        assert holder.stdout is not None and holder.stdin is not None
        ready = _read_line(holder.stdout.fileno())
        info = _read_all(info_r)
        if ready != b"ready":
            raise ValueError("the holder did not start")
        child = int(json.loads(info)["child-pid"])
        return os.open(f"/proc/{child}/ns/user", os.O_RDONLY), os.open(f"/proc/{child}/ns/net", os.O_RDONLY)
    finally:
        os.close(info_r)
        with contextlib.suppress(OSError):
            holder.stdin.close()                                  # type: ignore[union-attr]
        with contextlib.suppress(subprocess.TimeoutExpired):
            holder.wait(timeout=JOIN_TIMEOUT)
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()


def _read_line(fd: int) -> bytes:
    data, deadline = b"", time.monotonic() + JOIN_TIMEOUT
    while not data.endswith(b"\n"):
        if not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
            raise TimeoutError("the holder did not start")
        chunk = os.read(fd, 64)
        if not chunk:
            break
        data += chunk
    return data.strip()


def _read_all(fd: int) -> bytes:
    """The holder's ``--info-fd`` JSON (complete by the time its command runs)."""
    data = b""
    while select.select([fd], [], [], 0)[0]:
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    return data


def _works(argv: list[str]) -> bool:
    """Whether a sandbox like the commands' can start inside the joined namespace."""
    cmd = [*argv, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
           "--unshare-pid", "--die-with-parent", "true"]
    try:
        return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=JOIN_TIMEOUT).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
