"""The processes of one ``bash`` command: its shell, and ending everything it started (its environment
is ``sandbox.child_env``'s).

The command leads its own process group (a new session). When it ends, times out, is cancelled or
anything fails, the whole group gets SIGTERM (and SIGCONT), then SIGKILL after a short grace. On
Linux, the command runs under a keeper (``machinery/sandbox/lifetime.py``) that is asked first and ends
everything below it, whatever left the group or cleared its environment; processes that left the
group (``setsid``) are also found through a marker in their environment (``RUN_MARKER``) and killed
too (the fallback where there is no keeper). The user's hooks run through the same functions.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time

__all__ = ["shell_path", "kill_tree", "RUN_MARKER"]

KILL_GRACE = 0.5            # SIGTERM → SIGKILL
RUN_MARKER = "AXON_BASH_RUN"


def shell_path() -> str:
    return shutil.which("bash") or "/bin/sh"


def _members(pgid: int, run_id: str) -> list[int] | None:
    """Live (non-zombie) pids in the group or carrying this run's marker; None without /proc."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    needle = f"{RUN_MARKER}={run_id}".encode()
    me, found = os.getpid(), []
    for entry in entries:
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
            if fields[0] == b"Z":
                continue
            if int(fields[2]) == pgid:
                found.append(int(entry))
                continue
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if needle in fh.read():
                    found.append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    return found


def _signal_all(pgid: int, run_id: str, sig: int) -> bool:
    """Send ``sig`` to the group and (Linux) to escapees carrying the marker; whether any live
    process was there. Zombies do not count (a container's init may never reap them)."""
    pids = _members(pgid, run_id)
    if pids is None:                  # no /proc: the group is all we can reach
        try:
            os.killpg(pgid, sig)
            return True
        except (ProcessLookupError, PermissionError):
            return False
    if sig:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)
    return bool(pids)


def kill_tree(proc: subprocess.Popen[bytes], run_id: str) -> None:
    """SIGTERM (+SIGCONT for stopped ones) to everything the command started; SIGKILL after a grace.
    A command under a keeper (``sandbox.lifetime``) is ended by its keeper first (every descendant);
    the group and the marker are the fallback, and what is left without a keeper."""
    from axon_cli.machinery.sandbox.lifetime import end

    end(proc)
    if _signal_all(proc.pid, run_id, signal.SIGTERM):
        _signal_all(proc.pid, run_id, signal.SIGCONT)
        deadline = time.monotonic() + KILL_GRACE
        while True:
            proc.poll()                                      # reap the shell
            if not _signal_all(proc.pid, run_id, 0):
                break
            if time.monotonic() >= deadline:
                _signal_all(proc.pid, run_id, signal.SIGKILL)
                break
            time.sleep(0.01)
    with contextlib.suppress(subprocess.TimeoutExpired):  # only if stuck in the kernel (D state)
        proc.wait(timeout=5)
