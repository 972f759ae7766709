"""The chat's session opened on a thread while its prompt is already on screen (``Opener``).

Building a session (settings into a registry, MCP servers, extensions, the transcript) takes longer
than drawing the prompt, and the user's typing covers it. The REPL starts the thread once the first
prompt is drawn (before, it would take half the interpreter from what draws it) and waits for it
only when the session is first needed: the first line sent, a Shift-Tab, exiting. The thread then
imports the HTTP client (``app/preload.py``), after the build, so that the two never import the
same modules side by side.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Opener"]

T = TypeVar("T")


class Opener(Generic[T]):
    """``build`` run once on a thread (``start``) or, when nobody started it, on the caller's (``result``)."""

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._value: T | None = None
        self._error: BaseException | None = None
        self._done = threading.Event()

    def start(self, then: Callable[[], None]) -> None:
        """Build on a thread; ``then`` (on that thread) once it is built or has failed."""
        with self._lock:
            if self._thread is not None or self._done.is_set():
                return
            self._thread = threading.Thread(target=self._run, args=(then,), name="axon-open-session", daemon=True)
            self._thread.start()

    def _run(self, then: Callable[[], None]) -> None:
        try:
            self._value = self._build()
        except BaseException as e:   # handed to whoever waits: result() raises it on the main thread
            self._error = e
        finally:
            self._done.set()
        then()

    @property
    def started(self) -> bool:
        return self._thread is not None or self._done.is_set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def error(self) -> BaseException | None:
        return self._error if self._done.is_set() else None

    def built(self) -> T | None:
        """What was built, if the build has ended well; never waits."""
        return self._value if self._done.is_set() else None

    def result(self) -> T:
        """Wait for the build (or run it here if no thread was started); its error is raised here."""
        with self._lock:
            run_here = self._thread is None and not self._done.is_set()
            if run_here:
                self._thread = threading.current_thread()
        if run_here:
            self._run(lambda: None)
        self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._value is not None
        return self._value
