"""Leaving ``axon run`` without interpreter teardown, once everything was written.

At the end, tearing the interpreter down (clearing every module, finalizing every object) costs
about as much as a tenth of start-up and has no visible effect once output is flushed and exit
handlers ran. ``exit_now`` does exactly what ``sys.exit`` would do that anyone can see — joins the
threads that are not daemons, runs the ``atexit`` handlers (logging's flush and close, temporary
files), flushes stdout and stderr — and then leaves with ``os._exit``. If any of that fails, it
leaves the ordinary way, so nothing is ever lost. axon's own files (transcript, audit log, spill
files) are written with one unbuffered ``os.write`` per line or piece, so no buffer waits for a
finalizer.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading

__all__ = ["exit_now"]

def exit_now(exc: SystemExit) -> None:
    """Leave with ``exc``'s status without tearing the interpreter down (see the module doc);
    re-raises ``exc`` when the status is not a plain number or a step fails."""
    code = exc.code
    if code is None:
        code = 0
    if not isinstance(code, int) or isinstance(code, bool):
        raise exc
    try:
        _join_threads()
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        raise exc from None
    os._exit(code & 0xFF)


def _join_threads() -> None:
    """As the interpreter does on exit: wait for every thread that is not a daemon."""
    me = threading.current_thread()
    for thread in threading.enumerate():
        if thread is not me and not thread.daemon and thread.is_alive():
            thread.join()
