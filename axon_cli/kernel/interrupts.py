"""Ctrl-C, SIGTERM and SIGHUP from axon's first line on: one line on stderr, never a traceback.

``install`` runs first thing in ``startup.main``. Until the frontend says it is ``ready`` (an
``axon run`` turn, the chat's prompt loop) nothing needs cleaning up, so a Ctrl-C ends axon at once:
``axon: interrupted``, exit 130. Raising ``KeyboardInterrupt`` there instead is what went wrong: it
surfaces wherever the imports happen to be — a traceback from deep in an import, a
``PanicException`` when it lands inside pydantic-core's Rust code, or nothing at all when a
finalizer swallows it (axon then waits for a second Ctrl-C). Once ready, SIGINT raises
``KeyboardInterrupt`` as Python's own handler does (the turn is cancelled, the runtime closed),
and ``startup.main`` reports anything a Ctrl-C still shakes loose (``after_interrupt``) as the
same one line. SIGTERM and SIGHUP (``timeout``, a CI runner's cancel, a closed terminal) always end
axon at once with ``axon: terminated`` and 128 + the signal's number: every command axon started
ends with it through its keeper (``machinery/sandbox/lifetime.py``), and axon's files are written a whole
line per write, so nothing is left half done that a Ctrl-C would have finished. A signal that was
ignored when axon started (``nohup``, a script's ``cmd &``) stays ignored.

Only the built-in ``_signal`` module is imported: ``signal`` would add a millisecond to every start.
"""

from __future__ import annotations

import _signal
import os
from types import FrameType

__all__ = ["install", "ready", "after_interrupt"]

_received: list[int] = []


def _end_now(signum: int, _frame: FrameType | None) -> None:
    _received.append(signum)
    os.write(2, b"axon: interrupted\n" if signum == _signal.SIGINT else b"axon: terminated\n")
    os._exit(128 + signum)


def _interrupt(signum: int, _frame: FrameType | None) -> None:
    _received.append(signum)
    raise KeyboardInterrupt


def install() -> None:
    """Start-up: SIGINT, SIGTERM and SIGHUP end axon at once with one line (unless ignored)."""
    for sig in (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP):
        try:
            if _signal.getsignal(sig) != _signal.SIG_IGN:
                _signal.signal(sig, _end_now)
        except (ValueError, OSError):      # not the main thread (axon imported by a host program)
            return


def ready() -> None:
    """From here a Ctrl-C is a ``KeyboardInterrupt`` the frontend handles."""
    try:
        if _signal.getsignal(_signal.SIGINT) == _end_now:
            _signal.signal(_signal.SIGINT, _interrupt)
    except (ValueError, OSError):
        pass


def after_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is what a Ctrl-C shook loose: a ``KeyboardInterrupt``, or anything but an exit
    raised after one (pydantic-core's ``PanicException`` around an interrupted callback)."""
    if isinstance(exc, KeyboardInterrupt):
        return True
    return bool(_received) and not isinstance(exc, (SystemExit, GeneratorExit))
