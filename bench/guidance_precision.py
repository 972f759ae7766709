"""Precision and recall of each guidance check over the corpus in tests/guidance/corpus/.

    python bench/guidance_precision.py [-v]

Each case is replayed with the real tools (``tests/guidance/replay.py``); -v lists the cases each
check fired on wrongly or missed.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.guidance.replay import load_cases, replay_all, score, table  # noqa: E402


def main(argv: list[str]) -> int:
    cases = load_cases()
    scores = score(replay_all(cases))
    print(table(scores, len(cases)))
    if "-v" in argv:
        for s in scores.values():
            for label, ids in (("fired wrongly", s.false_fires), ("missed", s.misses)):
                if ids:
                    print(f"\n{s.check} {label}: " + ", ".join(ids))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
