"""Ctrl-C, SIGTERM and SIGHUP from axon's first line on: one line on stderr, never a traceback.

``install`` runs first thing in ``startup.main``. Until the frontend says it is ``ready`` (an
``axon run`` turn, the chat's prompt on screen) nothing needs cleaning up, so a Ctrl-C ends axon at
once: ``axon: interrupted``, exit 130. Raising ``KeyboardInterrupt`` there instead is what went wrong:
it surfaces wherever the imports happen to be — a traceback from deep in an import, a
``PanicException`` when it lands inside pydantic-core's Rust code, or nothing at all when a
finalizer or a library's ``except BaseException`` swallows it (axon then waits for a second
Ctrl-C). Once ready, SIGINT raises ``KeyboardInterrupt`` as Python's own handler does (the turn is
cancelled, the runtime closed), and ``startup.main`` reports anything a Ctrl-C still shakes loose
(``after_interrupt``) as the same one line.

One handler serves both states; ``ready`` flips a flag, it never swaps handlers. That matters where a
library takes SIGINT for a while and puts back what it found: prompt_toolkit's prompt routes SIGINT
to its own ``<sigint>`` key while it runs and reinstalls this handler after, so the chat calls
``ready`` from inside the running prompt (``pre_run``): until then a Ctrl-C ends axon at once, from
then on it is the prompt's, and after the prompt returns it is a ``KeyboardInterrupt`` — there is
no moment in which a ``KeyboardInterrupt`` is raised in code that might swallow it before anyone
is there to take it. SIGTERM and SIGHUP (``timeout``, a CI runner's cancel, a closed terminal) always end
axon at once with ``axon: terminated`` and 128 + the signal's number: every command axon started
ends with it through its keeper (``machinery/sandbox/lifetime.py``), and axon's files are written a whole
line per write, so nothing is left half done that a Ctrl-C would have finished. A signal that was
ignored when axon started (``nohup``, a script's ``cmd &``) stays ignored, unless a frontend at a
terminal takes Ctrl-C back (``take_ctrl_c``).

Only the built-in ``_signal`` module is imported: ``signal`` would add a millisecond to every start.
"""

from __future__ import annotations

import _signal
import os
from types import FrameType

__all__ = ["install", "ready", "take_ctrl_c", "after_interrupt"]

_received: list[int] = []
_ready: list[bool] = [False]


def _on_signal(signum: int, _frame: FrameType | None) -> None:
    _received.append(signum)
    if signum == _signal.SIGINT and _ready[0]:
        raise KeyboardInterrupt
    os.write(2, b"axon: interrupted\n" if signum == _signal.SIGINT else b"axon: terminated\n")
    os._exit(128 + signum)


def install() -> None:
    """Start-up: SIGINT, SIGTERM and SIGHUP end axon at once with one line (unless ignored)."""
    for sig in (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP):
        try:
            if _signal.getsignal(sig) != _signal.SIG_IGN:
                _signal.signal(sig, _on_signal)
        except (ValueError, OSError):      # not the main thread (axon imported by a host program)
            return


def ready() -> None:
    """From here a Ctrl-C is a ``KeyboardInterrupt`` the frontend handles (where SIGINT is axon's)."""
    _ready[0] = True


def take_ctrl_c() -> None:
    """SIGINT is axon's again though it was ignored at start (at a terminal Ctrl-C is the user's):
    ending axon until ``ready``, a ``KeyboardInterrupt`` after. Main thread only."""
    try:
        if _signal.getsignal(_signal.SIGINT) == _signal.SIG_IGN:
            _signal.signal(_signal.SIGINT, _on_signal)
    except (ValueError, OSError):
        pass


def after_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is what a Ctrl-C shook loose: a ``KeyboardInterrupt``, or anything but an exit
    raised after one (pydantic-core's ``PanicException`` around an interrupted callback)."""
    if isinstance(exc, KeyboardInterrupt):
        return True
    return bool(_received) and not isinstance(exc, (SystemExit, GeneratorExit))
