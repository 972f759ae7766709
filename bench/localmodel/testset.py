"""The frozen test set of issue 24: chores written 2026-12-02 before any tuning on them.

Never edit a chore here to fit results; tune only on the development set (chores.py). A chore found
broken is replaced by a new one under a new name, and the change is said in the README. Seven kinds,
at least four chores each; themes, file names, identifiers and values differ from every development
chore. The chores live in testset_ask.py, testset_change.py (edit, create, delete), testset_move.py
(move, multi) and testset_run.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from chorebase import KINDS, Chore  # noqa: E402
from testset_ask import CHORES_ASK  # noqa: E402
from testset_change import CHORES_CREATE, CHORES_DELETE, CHORES_EDIT  # noqa: E402
from testset_move import CHORES_MOVE, CHORES_MULTI  # noqa: E402
from testset_run import CHORES_RUN  # noqa: E402

TEST_CHORES: list[Chore] = [*CHORES_ASK, *CHORES_EDIT, *CHORES_CREATE, *CHORES_DELETE, *CHORES_MOVE,
                            *CHORES_MULTI, *CHORES_RUN]

assert len({c.name for c in TEST_CHORES}) == len(TEST_CHORES), "test chore names must be unique"
assert all(c.kind in KINDS for c in TEST_CHORES)

__all__ = ["TEST_CHORES"]
