"""Import the openai SDK on a background thread while the CLI builds settings, tools and session.

The first request needs the SDK (hundreds of milliseconds of imports); nothing before it does.
``axon run`` starts the thread at once. ``axon chat`` starts it once its prompt is on screen and its
session is open (``begin``, called by the REPL's ``opener.py`` thread, which imports the shared modules
first; the prompt's thread imports none of them): a thread importing beside the main one takes half the interpreter
and the import lock from the work that shows the prompt, and the user's typing covers the import. A failure here is ignored: the request
path imports the SDK itself and reports what is wrong.

Two threads importing the same package whose modules import each other in a loop can deadlock
(CPython then raises ``_DeadlockError`` in one of them) or see a half-initialised module. The SDK
and the CLI share pydantic (typer ≥ 0.29 imports it lazily while parsing the arguments; settings
and tool specs are pydantic models), so its modules are imported here, on the main thread, before
the SDK thread starts: what both threads need is then complete before either reaches it.
"""

from __future__ import annotations

import threading

__all__ = ["start", "begin", "SDK_MODULES", "SHARED_FIRST"]

# Shared with the CLI's own start-up: imported before the thread starts (see the module doc).
SHARED_FIRST = ("pydantic", "pydantic.main", "pydantic.fields", "pydantic.type_adapter", "pydantic.json_schema",
                "pydantic.functional_validators", "pydantic_core", "typing_extensions", "annotated_types")
# The SDK and the modules its client imports lazily on the first request (the transport).
SDK_MODULES = ("openai", "httpx2._transports.default",
               "httpx._transports.default")


DEFERRED = ("chat",)         # the thread starts when the REPL's prompt is on screen (``begin``)
_started: list[threading.Thread] = []
_endpoint: list[str | None] = [None]
_lock = threading.Lock()


def start(argv: list[str]) -> threading.Thread | None:
    """Start the import for ``run`` (for ``chat``: only the shared modules; ``begin`` starts the
    thread); nothing for their ``--help``."""
    if not argv or argv[0] not in ("run", "chat") or "--help" in argv or "-h" in argv:
        return None
    _endpoint[0] = _named_endpoint(argv)
    if argv[0] in DEFERRED:     # ``begin`` imports the shared modules on its caller's thread
        return None
    _import_all(SHARED_FIRST)
    return begin()


def begin() -> threading.Thread:
    """The SDK import thread, started on the first call (later calls return it)."""
    with _lock:
        if not _started:
            from axon_cli.agent.model import tls

            _import_all(SHARED_FIRST)
            tls.expect(_endpoint[0] if _endpoint[0] is not None else _named_endpoint([]))
            thread = threading.Thread(target=_import_sdk, name="axon-sdk-import", daemon=True)
            thread.start()
            _started.append(thread)
        return _started[0]


def _named_endpoint(argv: list[str]) -> str | None:
    """The endpoint ``--base-url`` or ``OPENAI_BASE_URL`` names (both outrank the settings files); only
    a hint for ``tls.expect``: a wrong reading loads certificates later or earlier, never skips them."""
    import os

    for i, arg in enumerate(argv):
        if arg == "--base-url" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--base-url="):
            return arg.split("=", 1)[1]
    return os.environ.get("OPENAI_BASE_URL")


def _import_sdk() -> None:
    from axon_cli.agent.model import tls

    _learn_platform()
    tls.prepare()   # the client's TLS context, loaded without the GIL while both threads import (``tls.py``)
    _import_all(SDK_MODULES)


def _learn_platform() -> None:
    """The SDK sends the platform in its headers; on Linux ``platform.platform()`` runs ``uname -p``
    once per process. Here that child is started while the process is small and the wait
    overlaps the main thread's work, instead of in front of the first request."""
    import contextlib
    import platform

    with contextlib.suppress(Exception):   # the SDK asks again and copes
        platform.platform()


def _import_all(names: tuple[str, ...]) -> None:
    import importlib

    for name in names:
        try:
            importlib.import_module(name)
        except Exception:   # not installed (httpx vs httpx2) or broken: the request path will say
            continue
