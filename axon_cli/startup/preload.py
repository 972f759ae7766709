"""Import the openai SDK on a background thread while the CLI builds settings, tools and session.

The first request needs the SDK (hundreds of milliseconds of imports); nothing before it does.
``axon chat`` shows its prompt without waiting for it. A failure here is ignored: the request
path imports the SDK itself and reports what is wrong.
"""

from __future__ import annotations

import threading

__all__ = ["start", "SDK_MODULES"]

# The SDK and the modules its client imports lazily on the first request (chat resource, transport).
SDK_MODULES = ("openai", "openai.resources.chat.completions.completions", "httpx2._transports.default",
               "httpx._transports.default")


def start(argv: list[str]) -> threading.Thread | None:
    """Start the import for ``run`` and ``chat`` (not for their ``--help``)."""
    if not argv or argv[0] not in ("run", "chat") or "--help" in argv or "-h" in argv:
        return None
    thread = threading.Thread(target=_import_sdk, name="axon-sdk-import", daemon=True)
    thread.start()
    return thread


def _import_sdk() -> None:
    import importlib

    for name in SDK_MODULES:
        try:
            importlib.import_module(name)
        except Exception:   # not installed (httpx vs httpx2) or broken: the request path will say
            continue
