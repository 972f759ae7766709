"""Helpers for the process-lifetime tests: find a run's processes by a token in their argv, and
wait on observable things (files the commands write, processes appearing or gone)."""

from __future__ import annotations

import contextlib
import itertools
import os
import time
from collections.abc import Callable
from pathlib import Path

DEADLINE = 20.0                 # generous: a busy 2-core machine
_COUNTER = itertools.count()
LOOP = "while :; do sleep 1; done"


def new_token() -> str:
    """A word to find a run's processes by, in argv (``env -i`` clears an environment marker)."""
    return f"lifetime{os.getpid()}x{next(_COUNTER)}"


def spinner(token: str, name: str) -> str:
    """``sh -c 'loop' TOKEN-NAME``: a shell looping forever, its argv carrying the token."""
    return f"sh -c '{LOOP}' {token}-{name}"


def live_where(read: str, match: Callable[[bytes], bool]) -> dict[int, bytes]:
    """Live (non-zombie) processes whose ``/proc/PID/<read>`` matches: pid → what was read."""
    found: dict[int, bytes] = {}
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                if fh.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue
            with open(f"/proc/{entry}/{read}", "rb") as fh:
                data = fh.read()
        except (OSError, IndexError):
            continue
        if match(data):
            found[int(entry)] = data
    return found


def live(token: str) -> dict[int, str]:
    """Live processes whose command line holds ``token``: pid → command line."""
    hits = live_where("cmdline", lambda cmdline: token.encode() in cmdline)
    return {pid: cmdline.replace(b"\0", b" ").decode(errors="replace")[:200] for pid, cmdline in hits.items()}


def wait_until(check: Callable[[], object], what: str, deadline: float = DEADLINE) -> None:
    end = time.monotonic() + deadline
    while not check():
        assert time.monotonic() < end, f"timed out after {deadline:g} s waiting for {what}"
        time.sleep(0.02)


def wait_gone(token: str) -> None:
    """Every process carrying ``token`` ends within the deadline (else the assertion lists them)."""
    end = time.monotonic() + DEADLINE
    while (left := live(token)) and time.monotonic() < end:
        time.sleep(0.05)
    assert left == {}, f"still running after axon ended: {sorted(left.values())}"


def files(project: Path, pattern: str) -> list[Path]:
    return sorted(project.glob(pattern))


def end_all(token: str) -> None:
    """Clean up after a failing test (what axon should have ended)."""
    import signal

    for pid in live(token):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
