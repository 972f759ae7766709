"""Commands that end when axon ends, however it ends: ``spawn`` starts one under a keeper.

Why a keeper process (``keeper.py``) and not the other designs:

- ``PR_SET_PDEATHSIG`` in the child fires when the *thread* that forked it ends, not the process:
  a background job started from a tool call's worker thread would die when that thread does; it
  also needs code between fork and exec (``preexec_fn``, unsafe with threads) and reaches only the
  direct child, not what it starts with ``setsid``.
- ``PR_SET_CHILD_SUBREAPER`` on axon itself catches detached descendants while axon lives, but a
  SIGKILL of axon hands them to init, out of reach.
- bubblewrap's ``--unshare-pid --die-with-parent`` contains a sandboxed command (kept, see
  ``bwrap.py``) but not one that runs outside it, and bwrap arms it only once it runs.
- cgroups are not writable for an unprivileged user on most machines.

So each command's parent is a keeper: a child subreaper (every descendant, ``setsid`` or double fork
or cleared environment, stays below it) that watches a pipe only axon writes to and ends all its
descendants the moment that pipe closes — axon's exit, crash or SIGKILL, with no start-up window —
or when axon asks (``end``), or soon after the command itself exits. It costs one small Python
start per command (``bench``: the bash rows). Where it cannot work (not Linux, no ``/proc``) the
command starts directly, as before.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import weakref
from pathlib import Path
from typing import Any

__all__ = ["spawn", "kept", "end", "keeper_argv", "KEEPER_WAIT"]

KEEPER_WAIT = 5.0           # seconds ``end`` waits for a keeper to end its command's processes
KEEPER = str(Path(__file__).with_name("keeper.py"))
_lock = threading.Lock()
_watch: list[int] = []      # [read end, write end] of the pipe whose closing tells every keeper axon is gone
_kept: weakref.WeakSet[subprocess.Popen[bytes]] = weakref.WeakSet()


def _supported() -> bool:
    return sys.platform.startswith("linux") and os.path.isdir("/proc/self") and bool(sys.executable)


def _watch_fd() -> int:
    """The read end of axon's lifetime pipe (made once; the write end is never written, never inherited)."""
    with _lock:
        if not _watch:
            _watch.extend(os.pipe())
        return _watch[0]


def keeper_argv(argv: list[str], watch: int) -> list[str]:
    """``argv`` run under a keeper that watches ``watch``."""
    return [_interpreter(), "-I", "-S", KEEPER, str(watch), "--", *argv]


def _interpreter() -> str:
    """A Python this user may run (the keeper needs only the standard library): ``sys.executable`` can
    be a venv link into a directory the user running axon cannot enter (a venv made by root from a
    Python under /root, used by another user); then the binary running axon, or the system's python3."""
    import shutil

    candidates = [sys.executable, getattr(sys, "_base_executable", ""), shutil.which("python3") or ""]
    with contextlib.suppress(OSError):
        candidates.insert(1, os.readlink("/proc/self/exe"))
    return next((c for c in candidates if c and os.access(c, os.X_OK)), sys.executable)


def spawn(argv: list[str], **popen: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(argv, **popen)`` under a keeper (Linux), so that the command and every
    process it starts end when axon ends; ``start_new_session`` as given (the keeper leads the group,
    the command is in it). ``end`` stops it. ``OSError`` as Popen raises it."""
    if not _supported():
        return subprocess.Popen(argv, **popen)
    watch = _watch_fd()
    popen["pass_fds"] = (*popen.get("pass_fds", ()), watch)
    proc: subprocess.Popen[bytes] = subprocess.Popen(keeper_argv(list(argv), watch), **popen)
    _kept.add(proc)
    return proc


def kept(proc: subprocess.Popen[Any]) -> bool:
    """Whether ``proc`` is a keeper ``spawn`` started."""
    return proc in _kept


def end(proc: subprocess.Popen[Any], wait: float = KEEPER_WAIT) -> bool:
    """Ask ``proc``'s keeper to end everything below it and wait up to ``wait`` s until it has;
    whether it did (False: not a keeper, or stuck — the caller falls back to killing the group)."""
    if not kept(proc):
        return False
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        return False
    return True
