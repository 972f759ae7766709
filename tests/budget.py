"""How many examples a property test draws.

The full count runs in CI (``CI`` set, as every CI service and ``.ci/run`` do) and whenever
``AXON_FULL_PROPERTIES=1`` asks for it; the developer's inner loop (``pytest -m "not e2e"``) draws a
fifth of it, at least 10, so it stays under a minute. Every property keeps its full budget where
the suite gates a change.
"""

from __future__ import annotations

import os

__all__ = ["examples", "FULL"]

FULL = bool(os.environ.get("CI")) or os.environ.get("AXON_FULL_PROPERTIES") == "1"


def examples(full: int) -> int:
    """``full`` in CI, else a fifth of it (at least 10, never more than ``full``)."""
    return full if FULL else min(full, max(10, full // 5))
