"""No cyclic garbage collection while ``axon run`` starts (a leaf module: anything may import it).

Start-up allocates hundreds of thousands of long-lived objects (modules, classes, pydantic models,
the SDK's types); the collector would walk them again and again for nothing. ``pause`` (called by
the entry point for ``axon run``) turns it off; ``resume`` (called when the SDK client is built,
just before the first request) freezes what exists — never scanned again — and turns it back on.
Both are no-ops when nothing was paused.
"""

from __future__ import annotations

import gc

__all__ = ["pause", "resume"]

_paused = False


def pause() -> None:
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Start-up is over: what exists now stays (frozen); collection is on again. Idempotent."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
