"""The keeper: a tiny parent between axon and one command, so nothing the command starts outlives axon.

Run by path (``python -I -S keeper.py WATCH_FD -- ARGV…``; standard library only, no axon import, so
it starts in a few milliseconds). It makes itself a child subreaper (``PR_SET_CHILD_SUBREAPER``):
every process the command starts, however it detaches — ``setsid``, ``setsid env -i …``, a double
fork, a daemon — is re-parented to the keeper when its parent dies, so it stays the keeper's
descendant and the keeper can always find it in ``/proc``. Then it forks and execs ``ARGV``.

It ends every descendant (SIGTERM and SIGCONT, then SIGKILL after a grace; passes repeat until none
is left, so a fork racing the kill is caught on the next pass) when:

- axon ends, however it ends (SIGKILL included): ``WATCH_FD`` is the read end of a pipe whose only
  write end axon holds, so it reads end-of-file the moment axon is gone. This is per process, not
  per thread (``PR_SET_PDEATHSIG`` fires when the *thread* that forked dies, which would end a
  background job when the tool call that started it returns), and it has no window: a keeper that
  starts after axon died reads end-of-file before it forks anything;
- axon asks (SIGTERM, SIGINT or SIGHUP to the keeper: ``lifetime.end``);
- the command itself exits: what it left behind gets ``LINGER`` seconds to finish (a background
  ``echo`` still writing), then it is ended, as the bash tool always did.

The keeper then exits with the command's own status (killed by a signal: by the same signal), so
for its caller it *is* the command. Under bubblewrap the keeper is bwrap's parent: bwrap's
``--die-with-parent`` follows the keeper, and its pid namespace dies with it.
"""

from __future__ import annotations

import _signal as signal  # the C module: ``signal`` would import enum, 10 ms at every command
import os
import select
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
GRACE = 0.5             # SIGTERM → SIGKILL
AXON_GONE_GRACE = 0.2   # nobody waits for the output any more: end it quickly
LINGER = 0.5            # after the command exits, what it left behind may finish this long
TICK = 0.02             # longest wait between passes while ending
_asked: list[int] = []


def _subreaper() -> bool:
    """Become a child subreaper; False where the kernel or a seccomp filter says no (then only the
    descendants still linked to the command are found: the process group's worth)."""
    try:                     # the C core of ctypes: 1 ms to import where ctypes takes 10
        import _ctypes

        class _Libc:
            _handle = _ctypes.dlopen(None, 0)       # type: ignore[arg-type]  # NULL: the process itself

        class _Function(_ctypes.CFuncPtr):      # int f(...), C calling convention
            _flags_ = _ctypes.FUNCFLAG_CDECL

        prctl = _Function(("prctl", _Libc()))   # type: ignore[arg-type]  # any object with _handle
        return bool(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (ImportError, OSError, AttributeError, TypeError):
        return False


def descendants(root: int) -> list[int]:
    """Live (non-zombie) processes below ``root``, read from ``/proc``."""
    children: dict[int, list[int]] = {}
    zombies: set[int] = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        pid = int(entry)
        children.setdefault(int(fields[1]), []).append(pid)
        if fields[0] == b"Z":
            zombies.add(pid)
    found, todo = [], [root]
    while todo:
        for pid in children.get(todo.pop(), ()):
            todo.append(pid)
            if pid not in zombies:
                found.append(pid)
    return found


def _reap(main: int, status: list[int]) -> bool:
    """Collect every exited child (the command's own status goes into ``status``); whether any child
    is left. Once the command has exited, every descendant left is a child (a subreaper adopts
    them), so no child means nothing left at all — no need to read ``/proc``."""
    while True:
        try:
            pid, code = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True
        if pid == main:
            status.append(code)


def _wait(fds: list[int], timeout: float | None) -> list[int]:
    try:
        return select.select(fds, [], [], timeout)[0]
    except InterruptedError:
        return []


def end_all(main: int, status: list[int], grace: float, wake: int) -> None:
    """SIGTERM (+SIGCONT) to every descendant, SIGKILL to what is left after ``grace``; until none."""
    deadline = time.monotonic() + grace
    termed: set[int] = set()
    while True:
        _reap(main, status)
        pids = descendants(os.getpid())
        if not pids:
            return
        late = time.monotonic() >= deadline
        for pid in pids:
            try:
                if late:
                    os.kill(pid, signal.SIGKILL)
                elif pid not in termed:
                    os.kill(pid, signal.SIGTERM)
                    os.kill(pid, signal.SIGCONT)
                    termed.add(pid)
            except (ProcessLookupError, PermissionError):
                pass
        if _wait([wake], TICK):
            _drain(wake)


def _drain(fd: int) -> bytes:
    try:
        return os.read(fd, 4096)
    except (BlockingIOError, InterruptedError):
        return b"-"
    except OSError:
        return b""


def _start(argv: list[str], watch: int) -> int:
    """Start the command (``posix_spawn``: no copy of this Python process, default signals, none of
    the keeper's descriptors); exit 127 with one line if it cannot start."""
    os.set_inheritable(watch, False)
    defaults = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGCHLD, signal.SIGPIPE, signal.SIGXFSZ)
    try:
        return os.posix_spawnp(argv[0], argv, os.environ, setsigdef=defaults)
    except OSError as e:
        os.write(2, f"axon: cannot run {argv[0]}: {e.strerror or e}\n".encode())
        os._exit(127)


def _exit_as(status: list[int]) -> None:
    code = status[0] if status else 0
    if os.WIFSIGNALED(code):
        sig = os.WTERMSIG(code)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(code) if status else 1)


def main(args: list[str]) -> None:
    watch, argv = int(args[0]), args[2:]
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda n, _f: _asked.append(n))
    signal.signal(signal.SIGCHLD, lambda _n, _f: None)
    subreaper = _subreaper()
    if _wait([watch], 0) or _asked:        # axon is already gone (or asks to stop): start nothing
        os._exit(1)
    main_pid = _start(argv, watch)
    null = os.open(os.devnull, os.O_RDWR)  # hold none of the command's pipes
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    status: list[int] = []
    exited_at: float | None = None
    while True:
        ready = _wait([watch, wake_r], TICK * 5 if exited_at is not None else None)
        if wake_r in ready:
            _drain(wake_r)
        children = _reap(main_pid, status)
        if watch in ready and not _drain(watch):
            end_all(main_pid, status, AXON_GONE_GRACE, wake_r)
            _exit_as(status)
        if _asked:
            end_all(main_pid, status, GRACE, wake_r)
            _exit_as(status)
        if status and exited_at is None:
            exited_at = time.monotonic()
        if exited_at is not None:
            if not (children if subreaper else descendants(os.getpid())):
                _exit_as(status)
            if time.monotonic() - exited_at >= LINGER:
                end_all(main_pid, status, GRACE, wake_r)
                _exit_as(status)


if __name__ == "__main__":
    main(sys.argv[1:])
