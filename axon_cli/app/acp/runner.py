"""The main thread's work queue: sessions are opened and turns run here, as in ``axon chat``.

The ACP connection's asyncio loop runs on a background thread; everything that touches a runtime
(opening a session, a turn, replaying history, closing) is a job handed to the main thread. A turn
runs there so that a cancel stops it exactly like Ctrl-C in the REPL: ``interrupt`` sets the turn's
``ctx.cancel`` and raises ``KeyboardInterrupt`` in the main thread (through a signal of its own, so a
real SIGINT still ends the server) — a model request blocked on the network is cut at once.
"""

from __future__ import annotations

import queue
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MainRunner", "Job"]

INTERRUPT_SIGNAL = signal.SIGUSR1
RESEND_INTERVAL_S = 0.02   # a signal that came just before the main thread blocked is lost: resend


@dataclass
class Job:
    """One piece of work for the main thread; ``owner`` names what ``interrupt`` may stop."""

    work: Callable[[], Any]
    on_interrupt: Callable[[], Any] = lambda: None
    owner: object = None
    future: Future[Any] = field(default_factory=Future)


class MainRunner:
    """Runs jobs one at a time on the thread that calls ``serve`` (the main thread)."""

    def __init__(self) -> None:
        self._jobs: queue.Queue[Job | None] = queue.Queue()
        self._lock = threading.Lock()
        self._current: Job | None = None
        self._target: object = None          # the owner an interrupt was sent for, until it lands
        self._sigint = False                 # a real SIGINT (Ctrl-C in a terminal): ends ``serve``

    def submit(self, work: Callable[[], Any], *, owner: object = None,
               on_interrupt: Callable[[], Any] = lambda: None) -> Future[Any]:
        job = Job(work, on_interrupt, owner)
        self._jobs.put(job)
        return job.future

    def stop(self) -> None:
        """Let ``serve`` return once the jobs already queued are done."""
        self._jobs.put(None)

    def interrupt(self, owner: object) -> bool:
        """Stop ``owner``'s running job like Ctrl-C; False when none of its jobs is running."""
        with self._lock:
            if owner is None or self._current is None or self._current.owner is not owner:
                return False
            job = self._current
            self._target = owner
            signal.pthread_kill(threading.main_thread().ident or 0, INTERRUPT_SIGNAL)
        threading.Thread(target=self._deliver, args=(job, owner), daemon=True,
                         name="acp-interrupt").start()
        return True

    def _deliver(self, job: Job, owner: object) -> None:
        """Signal the main thread until the interrupt lands or ``job`` ends.

        Python runs a signal's handler on the main thread only between bytecodes; a signal that
        arrives after the main thread released the GIL but before it blocked (a lock wait, a socket
        read) only marks the handler pending, and the blocking call waits out its whole timeout.
        Another signal sent while it is blocked ends the wait with EINTR and runs the handler, so
        resend until the handler took the target (``_target`` cleared) or the job is over."""
        main = threading.main_thread().ident or 0
        while True:
            time.sleep(RESEND_INTERVAL_S)
            with self._lock:
                if self._target is not owner or self._current is not job:
                    return
                signal.pthread_kill(main, INTERRUPT_SIGNAL)

    def _on_interrupt_signal(self, _signum: int, _frame: object) -> None:
        """Raise ``KeyboardInterrupt`` in the job the interrupt was for; a late one does nothing."""
        current, target = self._current, self._target
        self._target = None
        if target is not None and current is not None and current.owner is target:
            raise KeyboardInterrupt

    def _on_sigint(self, _signum: int, _frame: object) -> None:
        self._sigint = True
        raise KeyboardInterrupt

    def serve(self) -> None:
        """Run jobs until ``stop``; on the main thread (signals are delivered there). A real SIGINT
        interrupts the running turn, like Ctrl-C in chat; between jobs it ends the server."""
        saved = signal.signal(INTERRUPT_SIGNAL, self._on_interrupt_signal), signal.signal(signal.SIGINT, self._on_sigint)
        try:
            while True:
                try:
                    job = self._jobs.get()
                    if job is None:
                        return
                    self._sigint = False
                    self._run(job)
                except KeyboardInterrupt:     # landed between a job's end and its bookkeeping
                    if self._sigint and self._current is None:
                        raise
                    self._settle()
        finally:
            signal.signal(INTERRUPT_SIGNAL, saved[0])
            signal.signal(signal.SIGINT, saved[1])

    def _run(self, job: Job) -> None:
        with self._lock:
            self._current = job
        try:
            value = job.work()
        except KeyboardInterrupt:
            value = job.on_interrupt()
        except BaseException as e:  # noqa: B036 - handed to the waiting request, never lost
            self._finish(job, error=e)
            return
        self._finish(job, value=value)

    def _finish(self, job: Job, value: Any = None, error: BaseException | None = None) -> None:
        with self._lock:
            self._current = None
        if job.future.done():
            return
        if error is not None:
            job.future.set_exception(error)
        else:
            job.future.set_result(value)

    def _settle(self) -> None:
        with self._lock:
            job, self._current = self._current, None
        if job is not None and not job.future.done():
            try:
                job.future.set_result(job.on_interrupt())
            except Exception as e:
                job.future.set_exception(e)
