"""The chore sets: the development set (issues 12 and 24) and the frozen test set (issue 24).

Development set (``CHORES``, tune on this one only): the 27 chores written for issue 12 in five kinds
- questions about the project's files (``ask``), changing a line (``edit``), creating a file
(``create``), deleting a file (``delete``), running a command and reporting or acting on it (``run``)
- plus the ``move`` and ``multi`` (one change over several files) chores added for issue 24. They
live in chores_ask.py, chores_change.py, chores_run.py and chores_more.py. The frozen test set
(``TEST_CHORES``) lives in testset*.py and is never edited to fit results. Each chore is one to three
steps; the data type, fixture building and checker helpers are in chorebase.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from chorebase import KINDS, Chore, build_fixture, read_project  # noqa: E402
from chores_ask import CHORES_ASK  # noqa: E402
from chores_change import CHORES_CREATE, CHORES_DELETE, CHORES_EDIT  # noqa: E402
from chores_more import CHORES_MOVE, CHORES_MULTI  # noqa: E402
from chores_run import CHORES_RUN  # noqa: E402
from testset import TEST_CHORES  # noqa: E402

CHORES: list[Chore] = [*CHORES_ASK, *CHORES_EDIT, *CHORES_CREATE, *CHORES_DELETE, *CHORES_MOVE, *CHORES_MULTI,
                       *CHORES_RUN]
SETS: dict[str, list[Chore]] = {"dev": CHORES, "test": TEST_CHORES}
BY_NAME: dict[str, Chore] = {c.name: c for c in [*CHORES, *TEST_CHORES]}     # both sets
SET_OF: dict[str, str] = {c.name: s for s, cs in SETS.items() for c in cs}

assert len(BY_NAME) == len(CHORES) + len(TEST_CHORES), "chore names must be unique across both sets"
assert all(c.kind in KINDS for c in BY_NAME.values())

__all__ = ["CHORES", "TEST_CHORES", "SETS", "SET_OF", "BY_NAME", "KINDS", "Chore", "build_fixture",
           "read_project", "chores_of"]


def chores_of(which: str) -> list[Chore]:
    """The chores of a set: ``dev``, ``test`` or ``all`` (dev, then test)."""
    return [*CHORES, *TEST_CHORES] if which == "all" else SETS[which]


if __name__ == "__main__":
    for set_name, members in SETS.items():
        counts = {k: sum(c.kind == k for c in members) for k in KINDS}
        print(f"{set_name}: {len(members)} chores: " + ", ".join(f"{k} {n}" for k, n in counts.items()))
        for c in members:
            print(f"  {c.name:26} {c.kind:7} {c.steps} step(s)  {c.task}")
