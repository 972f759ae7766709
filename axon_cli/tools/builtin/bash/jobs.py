"""Background jobs of one session: ``bash`` calls with ``run_in_background`` that keep running.

A job is one shell command started like a foreground one (its own process group, the same
environment, sandbox and masking) whose output a thread reads as it arrives. Memory holds the
job's head and tail windows and, for ``bash_output``, what is new since the last read (its own
head and tail, so a chatty server costs bounded memory); everything past the limit also goes to a
spill file, as for a foreground command. When the shell exits, or ``kill`` is asked, the whole
process group is ended with ``processes.kill_tree`` (SIGTERM, then SIGKILL for what ignores it;
on Linux everything below the job's keeper, ``setsid`` and cleared environments included). The
table is closed with the session; tables still open when the interpreter exits are closed then
(``atexit``); and if axon is killed outright, each job's keeper (``machinery/sandbox/lifetime.py``) sees it
and ends the job, so no job outlives axon.
"""

from __future__ import annotations

import atexit
import contextlib
import subprocess
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from axon_cli.tools.builtin.bash.capture import StreamCapture
from axon_cli.tools.builtin.bash.processes import kill_tree
from axon_cli.tools.builtin.bash.pump import drain, pump, widen_pipe
from axon_cli.tools.governance import head_tail
from axon_cli.tools.spec import ToolError

__all__ = ["Job", "JobCapture", "JobTable", "MAX_RUNNING", "STOP_WAIT"]

MAX_RUNNING = 8          # background jobs running at once in one session
STOP_WAIT = 10.0         # seconds ``kill`` waits for the job's thread to finish ending it


class JobCapture(StreamCapture):
    """A ``StreamCapture`` that also keeps what is new since ``take_new`` was last called."""

    def __init__(self, limit: int, state_dir: Path, tool: str, mask: Any) -> None:
        super().__init__(limit, state_dir, tool, mask)
        self._lock = threading.Lock()
        self._new_head = ""
        self._new_tail = ""
        self.new_total = 0
        self.arrived = threading.Event()     # set while there is unread output

    def _add(self, s: str) -> None:
        super()._add(s)
        self._note(s)

    def _add_ascii(self, data: bytes | memoryview) -> None:
        super()._add_ascii(data)
        self._note(bytes(data).decode("ascii"))

    def _note(self, s: str) -> None:
        if not s:
            return
        with self._lock:
            self.new_total += len(s)
            if len(self._new_head) < self.limit:
                self._new_head += s[:self.limit - len(self._new_head)]
            self._new_tail = (self._new_tail + s)[-self.limit:]
            self.arrived.set()

    def take_new(self, limit: int) -> tuple[str, int]:
        """What arrived since the last call (head + marker + tail beyond ``limit``) and its size."""
        with self._lock:
            head, tail, total = self._new_head, self._new_tail, self.new_total
            self._new_head, self._new_tail, self.new_total = "", "", 0
            self.arrived.clear()
        limit = min(limit, self.limit)
        if total <= limit:
            return head[:total], total
        return head_tail(head, tail, total, limit), total


@dataclass
class Job:
    """One background command: its processes, its output and how it ended."""

    id: str
    command: str
    proc: subprocess.Popen[bytes]
    run_id: str
    capture: JobCapture
    stack: contextlib.ExitStack          # the sandbox's mount points, held while the job runs
    started: float = field(default_factory=time.monotonic)
    stop: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    killed: bool = False
    thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return not self.done.is_set()

    def status(self) -> str:
        """``running``, ``killed`` or ``exited (code N)``."""
        if self.running:
            return "running"
        if self.killed:
            return "killed"
        return f"exited (code {self.proc.returncode})"

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def wait_output(self, timeout: float, cancel: threading.Event) -> None:
        """Wait up to ``timeout`` until the job printed something new, ended, or ``cancel`` is set."""
        deadline = time.monotonic() + timeout
        while not (self.capture.arrived.is_set() or self.done.is_set() or cancel.is_set()):
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self.capture.arrived.wait(min(left, 0.05))

    def _watch(self) -> None:
        """Read the output until the shell exits or ``stop`` is set; then end everything it started."""
        try:
            pump(self.proc, self.capture, self.stop, float("inf"))
        except Exception:        # a read error: end the job rather than leave it unwatched
            pass
        finally:
            self._finish()

    def _finish(self) -> None:
        try:
            kill_tree(self.proc, self.run_id)
            with contextlib.suppress(OSError, ValueError):
                drain(self.proc, self.capture)
        finally:
            assert self.proc.stdout is not None
            with contextlib.suppress(OSError):
                self.proc.stdout.close()
            with contextlib.suppress(OSError):
                self.capture.close()
            with contextlib.suppress(Exception):
                self.stack.close()
            self.done.set()


class JobTable:
    """The background jobs of one session, by id (``job-1``, ``job-2``, …)."""

    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._count = 0
        self.closed = False
        _LIVE.add(self)

    def start(self, command: str, argv: list[str], env: dict[str, str], run_id: str, cwd: Path,
              capture: JobCapture, stack: contextlib.ExitStack, verdict: Any = None) -> Job:
        """Start ``argv`` as a new job (``stack`` is closed when it ends, or now if it cannot start);
        ``verdict``: the outside gate's word on where it runs (``sandbox.outside.shell_verdict``)."""
        from axon_cli.machinery.sandbox import outside

        with self._lock:
            running = sum(1 for j in self._jobs.values() if j.running)
            if self.closed or running >= MAX_RUNNING:
                stack.close()
                why = "the session is ending" if self.closed else \
                    f"{running} background jobs are running already (at most {MAX_RUNNING}); stop one with kill_shell"
                raise ToolError(f"cannot start a background job: {why}")
            try:
                proc = outside.popen(argv, verdict or outside.as_confined(argv), cwd=cwd, env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     start_new_session=True)
            except OSError as e:
                stack.close()
                raise ToolError(f"could not start the shell: {e.strerror or e}") from None
            self._count += 1
            job = Job(f"job-{self._count}", command, proc, run_id, capture, stack)
            self._jobs[job.id] = job
        widen_pipe(proc)
        job.thread = threading.Thread(target=job._watch, name=f"axon-{job.id}", daemon=True)
        job.thread.start()
        return job

    def get(self, job_id: str) -> Job:
        with self._lock:
            job = self._jobs.get(job_id.strip())
            known = ", ".join(self._jobs) or "none"
        if job is None:
            raise ToolError(f"no background job {job_id!r} in this session (jobs: {known})")
        return job

    def jobs(self) -> list[Job]:
        with self._lock:
            return list(self._jobs.values())

    def kill(self, job_id: str) -> Job:
        """End ``job_id``'s whole process group and wait (bounded) until it is gone."""
        job = self.get(job_id)
        _stop(job)
        return job

    def close(self) -> None:
        """End every job (the session is over); idempotent."""
        with self._lock:
            self.closed = True
            jobs = list(self._jobs.values())
        for job in jobs:
            if job.running:
                job.killed = True
                job.stop.set()
        for job in jobs:
            _stop(job)


def _stop(job: Job) -> None:
    if job.running:
        job.killed = True
        job.stop.set()
        job.done.wait(STOP_WAIT)
    if job.running:              # the thread is stuck: end the processes from here
        kill_tree(job.proc, job.run_id)


_LIVE: weakref.WeakSet[JobTable] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    """Interpreter exit: no background job outlives axon."""
    for table in list(_LIVE):
        with contextlib.suppress(Exception):
            table.close()
