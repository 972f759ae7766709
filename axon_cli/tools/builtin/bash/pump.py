"""Reading a running command's output pipe until the command is done (the ``bash`` tool's loop).

One selector waits for output and, on Linux, for the shell's exit (a pidfd becomes readable when
the process exits, without reaping it), so the end of a command is seen the moment it happens.
Only cancellation (a ``threading.Event``) is checked on a timer. While output pours in (a read of
64 KiB or more that did not fill half the buffer), the pump waits 1 ms (on the cancel event)
before the next read, so the pipe fills and is taken in one large read: fewer wake-ups for both
the command and axon; a slow writer is never waited for longer than it takes anyway. Without pidfd (other systems, old
kernels) the exit is checked with ``waitid(WNOWAIT)`` on every pass, as before.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import threading
import time

from axon_cli.tools.builtin.bash.capture import StreamCapture

__all__ = ["pump", "drain", "run_to_end", "widen_pipe", "exited", "POLL", "DRAIN_GRACE", "PIPE_SIZE"]

POLL = 0.05                 # seconds between checks of cancellation and timeout
DRAIN_GRACE = 0.5           # after the shell exits, background children may hold the pipe this long
PIPE_SIZE = 1 << 20         # Linux: a larger pipe means fewer, larger reads
BATCH_MIN = 1 << 16         # a read this large (but short of BATCH_FULL) means output is pouring in:
BATCH_FULL = 1 << 19        # wait BATCH_WAIT before the next read, so it takes up to a full pipe
BATCH_WAIT = 0.001          # (one large read costs both sides far less than many small ones)


def exited(proc: subprocess.Popen[bytes]) -> bool:
    """Whether the shell exited, without reaping it (its pid keeps the group id reserved)."""
    if proc.returncode is not None:
        return True
    if hasattr(os, "waitid"):
        try:
            return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True
    return proc.poll() is not None


def widen_pipe(proc: subprocess.Popen[bytes]) -> None:
    """Ask for a 1 MiB pipe (Linux ``F_SETPIPE_SZ``; the default 64 KiB costs a read per 64 KiB)."""
    try:
        import fcntl

        assert proc.stdout is not None
        fcntl.fcntl(proc.stdout.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_SIZE)
    except (ImportError, OSError, ValueError):
        pass


def _exit_fd(proc: subprocess.Popen[bytes]) -> int | None:
    """A descriptor that becomes readable when the shell exits (Linux pidfd), or None."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is None or proc.returncode is not None:
        return None
    try:
        fd: int = pidfd_open(proc.pid)
    except OSError:          # ENOSYS (kernel < 5.3), or seccomp forbids it
        return None
    return fd


class _Pump:
    """State of one pump: the pipe, the exit descriptor and when the exit was seen."""

    def __init__(self, proc: subprocess.Popen[bytes], capture: StreamCapture, sel: selectors.BaseSelector) -> None:
        assert proc.stdout is not None
        self.proc, self.capture, self.sel = proc, capture, sel
        self.pipe: int | None = proc.stdout.fileno()
        self.exit_fd = _exit_fd(proc)
        self.exited_at: float | None = None
        sel.register(self.pipe, selectors.EVENT_READ)
        if self.exit_fd is not None:
            sel.register(self.exit_fd, selectors.EVENT_READ)

    def close(self) -> None:
        if self.exit_fd is not None:
            os.close(self.exit_fd)
            self.exit_fd = None

    def check_exit(self, now: float) -> None:
        """Without pidfd, look at the process on every pass."""
        if self.exited_at is None and self.exit_fd is None and exited(self.proc):
            self.exited_at = now

    def wait(self, timeout: float, cancel: threading.Event) -> None:
        """Wait up to ``timeout`` for output or the exit, and take what came."""
        if not self.sel.get_map():          # nothing left to watch (no pidfd, pipe closed)
            cancel.wait(timeout)
            return
        for key, _ in self.sel.select(timeout):
            if key.fd == self.pipe:
                got = self.capture.read_from(key.fd)
                if not got:
                    self.sel.unregister(key.fd)
                    self.pipe = None
                elif BATCH_MIN <= got < BATCH_FULL:   # a fast writer: let the pipe fill, read it whole
                    cancel.wait(BATCH_WAIT)
            elif self.exited_at is None:
                self.exited_at = time.monotonic()
                self.sel.unregister(key.fd)


def pump(proc: subprocess.Popen[bytes], capture: StreamCapture, cancel: threading.Event, deadline: float) -> str:
    """Read output until the command is done; returns "exit", "timeout" or "cancelled"."""
    with selectors.DefaultSelector() as sel:
        state = _Pump(proc, capture, sel)
        try:
            while True:
                if cancel.is_set():
                    return "cancelled"
                now = time.monotonic()
                if now >= deadline:
                    return "timeout"
                state.check_exit(now)
                if state.exited_at is not None:
                    if state.pipe is None or now - state.exited_at >= DRAIN_GRACE:
                        return "exit"
                    state.wait(min(POLL, deadline - now, state.exited_at + DRAIN_GRACE - now), cancel)
                else:
                    state.wait(min(POLL, deadline - now), cancel)
        finally:
            state.close()


def drain(proc: subprocess.Popen[bytes], capture: StreamCapture, wait: float = DRAIN_GRACE) -> None:
    """Read what is left in the pipe after the processes were killed (bounded in time)."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    deadline = time.monotonic() + wait
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0 and sel.select(left):
            if not capture.read_from(fd):
                return


def run_to_end(proc: subprocess.Popen[bytes], capture: StreamCapture, cancel: threading.Event,
               deadline: float, run_id: str) -> str:
    """Pump ``proc``'s output into ``capture`` until it exits, the deadline passes or ``cancel`` is
    set; then, always, kill its whole tree (nothing it started outlives the call), drain what is
    left and close the pipe and the capture. The outcome as ``pump`` says it ("error" if it raised)."""
    from axon_cli.tools.builtin.bash.processes import kill_tree

    outcome = "error"
    try:
        outcome = pump(proc, capture, cancel, deadline)
    finally:
        kill_tree(proc, run_id)
        try:
            drain(proc, capture)
        finally:
            assert proc.stdout is not None
            proc.stdout.close()
            capture.close()
    return outcome

