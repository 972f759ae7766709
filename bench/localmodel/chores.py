"""The chore set for issue 12: small local models finishing everyday chores.

27 chores written for this issue (none taken from a public benchmark), in five kinds: questions
about the project's files (``ask``), changing a line (``edit``), creating a file (``create``),
deleting a file (``delete``) and running a command and reporting or acting on it (``run``). Each is
one to three steps. The chores themselves live in chores_ask.py, chores_change.py and chores_run.py;
the data type, fixture building and checker helpers in chorebase.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from chorebase import KINDS, Chore, build_fixture, read_project  # noqa: E402
from chores_ask import CHORES_ASK  # noqa: E402
from chores_change import CHORES_CREATE, CHORES_DELETE, CHORES_EDIT  # noqa: E402
from chores_run import CHORES_RUN  # noqa: E402

CHORES: list[Chore] = [*CHORES_ASK, *CHORES_EDIT, *CHORES_CREATE, *CHORES_DELETE, *CHORES_RUN]
BY_NAME: dict[str, Chore] = {c.name: c for c in CHORES}

assert len(BY_NAME) == len(CHORES), "chore names must be unique"
assert all(c.kind in KINDS for c in CHORES)

__all__ = ["CHORES", "BY_NAME", "KINDS", "Chore", "build_fixture", "read_project"]


if __name__ == "__main__":
    counts = {k: sum(c.kind == k for c in CHORES) for k in KINDS}
    print(f"{len(CHORES)} chores: " + ", ".join(f"{k} {n}" for k, n in counts.items()))
    for c in CHORES:
        print(f"  {c.name:24} {c.kind:7} {c.steps} step(s)  {c.task}")
