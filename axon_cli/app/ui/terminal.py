"""The chat's terminal while its loop runs: echo and canonical mode off between prompts (``no_echo``),
and Ctrl-C the user's again when the chat was started with SIGINT ignored (``ctrl_c_interrupts``).
``repl`` asks for both only when stdin and stdout are a terminal.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

__all__ = ["no_echo", "ctrl_c_interrupts"]


@contextlib.contextmanager
def no_echo(enabled: bool) -> Iterator[None]:
    """Turn off the terminal's echo between two prompts (a turn, a slash command): an echoed ``^C``
    or type-ahead would shift the live region by a line and leave a stray copy behind. Ctrl-C still
    sends SIGINT; keys typed meanwhile wait for the next prompt as they were typed — canonical mode is
    off too, or a Ctrl-D typed then would be taken by the line discipline as an end-of-file nobody
    reads, and lost; and Enter stays Enter (ICRNL off), or it would reach the prompt as Ctrl-J, a
    newline, and the line typed ahead would not be sent."""
    if not enabled:
        yield
        return
    from axon_cli.kernel.interrupts import ready

    ready()                          # the terminal is changed: a Ctrl-C must unwind to restore it
    try:
        import termios

        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
        quiet = list(saved)
        quiet[0] &= ~termios.ICRNL
        quiet[3] &= ~(termios.ECHO | termios.ECHOCTL | termios.ICANON)
        termios.tcsetattr(fd, termios.TCSANOW, quiet)
    except (ImportError, OSError, ValueError, AttributeError):
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            termios.tcsetattr(fd, termios.TCSANOW, saved)


def ctrl_c_interrupts() -> None:
    """At a terminal Ctrl-C is the user's: a chat started with SIGINT ignored (a script's ``cmd &``
    starts it so; ignoring survives exec, and Python then installs no KeyboardInterrupt) would let
    a running command or answer go on to the end. Main thread only."""
    from axon_cli.kernel.interrupts import take_ctrl_c

    take_ctrl_c()
