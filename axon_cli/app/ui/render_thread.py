"""The render thread under ``stream.StreamView``: any thread queues events and callables, and one
thread handles them in order, so nothing but that thread writes to the terminal (``stream`` says why).

An event goes to the handler named after its type (``_on_tool_call_end`` for ``tool_call_end``), a
callable is called; an exception is logged, never raised, so a rendering bug cannot stop the output.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

from axon_cli.kernel.events import Event

__all__ = ["RenderThread"]

log = logging.getLogger("axon.ui")


class RenderThread:
    """The base of an event consumer that draws: ``self(event)`` queues, ``sync`` waits for the queue."""

    def __init__(self) -> None:
        self._queue: queue.Queue[Event | Callable[[], None]] = queue.Queue()
        self._thread = threading.Thread(target=self._work, daemon=True, name="axon-render")
        self._thread.start()

    def __call__(self, event: Event) -> None:
        self._queue.put(event)

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if isinstance(item, Event):
                    handler = getattr(self, f"_on_{item.type}", None)
                    if handler is not None:
                        handler(item)
                else:
                    item()
            except Exception:  # a rendering bug must never kill the output
                log.exception("rendering failed")

    def sync(self, fn: Callable[[], None] | None = None) -> None:
        """Run ``fn`` on the render thread after everything queued so far, and wait for it."""
        if threading.current_thread() is self._thread:
            if fn is not None:
                fn()
            return
        done = threading.Event()

        def step() -> None:
            try:
                if fn is not None:
                    fn()
            finally:
                done.set()

        self._queue.put(step)
        while not done.wait(0.05):
            if not self._thread.is_alive():
                return
