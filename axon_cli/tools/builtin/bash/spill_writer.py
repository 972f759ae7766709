"""The spill file of a running command, written on its own thread.

Writing 100 MB to the page cache takes about as long as reading it from the command's pipe and
scanning it for secrets; on a thread (``os.write`` releases the GIL) the two overlap. Pieces are
written in the order they were handed over. A piece may be a view of a buffer the caller will
reuse: it hands over a ``threading.Event`` with it, set once the piece is written, and waits for it
before reusing the buffer. A write error (disk full) is kept and raised by ``close``; what comes
after it is dropped.
"""

from __future__ import annotations

import os
import queue
import threading

__all__ = ["SpillWriter", "MAX_QUEUED"]

MAX_QUEUED = 8        # pieces waiting to be written (each at most a read's worth, 1 MiB)


class SpillWriter:
    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._queue: queue.Queue[tuple[bytes | bytearray | memoryview, threading.Event | None] | None] = \
            queue.Queue(MAX_QUEUED)
        self._error: OSError | None = None
        self._thread = threading.Thread(target=self._run, name="axon-spill", daemon=True)
        self._thread.start()

    def write(self, data: bytes | bytearray | memoryview, written: threading.Event | None = None) -> None:
        """Queue ``data``; ``written`` (cleared here) is set once it is on its way to the file."""
        if written is not None:
            written.clear()
        self._queue.put((data, written))

    def close(self) -> None:
        """Wait for every queued piece, close the file; raise the first write error, if any."""
        self._queue.put(None)
        self._thread.join()
        os.close(self.fd)
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            data, written = item
            try:
                if self._error is None:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(self.fd, view):]
            except OSError as e:
                self._error = e
            finally:
                if written is not None:
                    written.set()
