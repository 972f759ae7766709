"""Frozen test set (issue 24): chores that run a command and report on it, or act on what it printed.

Written 2026-12-02, before any tuning on it; never edit a chore to fit results (a chore found broken
is replaced by a new one under a new name, and the change is said in the README). Themes, file names,
identifiers and values differ from every development chore. The scripts compute their output, so the
value is in no file: the answer is right only if the command was run (or the computation done exactly).
"""

from __future__ import annotations

import zlib

from chorebase import Chore, Files, call_is, changed_exactly, load_module, mentions, unchanged

_README = "# {name}\n\nRun the scripts from the project root.\n"

_DIGEST_PY = ('"""Prints the digest the release notes quote."""\n\nimport zlib\n\n'
              "print(zlib.crc32(b'cormorant-quay') % 99991)\n")
DIGEST = str(zlib.crc32(b"cormorant-quay") % 99991)

_TALLY_PY = ("BINS = [14, 3, 27, 8, 19, 5]\n\nprint(sum(b * b for b in BINS) - max(BINS) * min(BINS))\n")
TALLY = str(sum(b * b for b in [14, 3, 27, 8, 19, 5]) - 27 * 3)


def _check_cases(n_fail: int) -> str:
    body = ["import unittest\n\nfrom gauge import scale\n\n\nclass GaugeChecks(unittest.TestCase):\n"]
    for i in range(10):
        want = i * 4 + (1 if i < n_fail else 0)
        body.append(f"    def test_scale_{i}(self):\n        self.assertEqual(scale({i}), {want})\n\n")
    return "".join(body)


FILES_GAUGE: Files = {"gauge.py": "def scale(x: int) -> int:\n    return x * 4\n",
                      "checks/test_gauge.py": _check_cases(7), "README.md": _README.format(name="gauge")}

_LINT_PY = ('"""Every .py file under pelican/ must start with the SPDX line."""\n\nimport pathlib\nimport sys\n\n'
            "HEADER = '# SPDX-License-Identifier: MIT'\nbad = [str(p) for p in sorted(pathlib.Path('pelican')"
            ".rglob('*.py'))\n       if not p.read_text().startswith(HEADER)]\n"
            "for p in bad:\n    print(f'{p}: missing license header')\n"
            "sys.exit(1 if bad else 0)\n")
_SPDX = "# SPDX-License-Identifier: MIT\n"
_PELICAN_NEST = "def nest(twigs: int) -> str:\n    return 'nest of ' + str(twigs)\n"
FILES_PELICAN: Files = {"lint_headers.py": _LINT_PY, "pelican/fly.py": _SPDX + "def fly() -> str:\n    return 'up'\n",
                        "pelican/nest.py": _PELICAN_NEST, "pelican/dive.py": _SPDX + "DEPTH_M = 38\n",
                        "README.md": _README.format(name="pelican")}

_ROUNDING = "def to_cents(amount: float) -> int:\n    return int(amount * 100)\n\n\n" \
            "def from_cents(cents: int) -> float:\n    return cents / 100\n"
_TEST_ROUNDING = ("import unittest\n\nfrom rounding import from_cents, to_cents\n\n\n"
                  "class RoundingTests(unittest.TestCase):\n    def test_small(self):\n"
                  "        self.assertEqual(to_cents(0.29), 29)\n\n    def test_whole(self):\n"
                  "        self.assertEqual(to_cents(3.0), 300)\n\n    def test_back(self):\n"
                  "        self.assertEqual(from_cents(1999), 19.99)\n")
FILES_ROUNDING: Files = {"rounding.py": _ROUNDING, "test_rounding.py": _TEST_ROUNDING,
                         "README.md": _README.format(name="till")}
FILES_DIGEST: Files = {"scripts/digest.py": _DIGEST_PY, "README.md": _README.format(name="cormorant")}
FILES_TALLY: Files = {"tally.py": _TALLY_PY, "README.md": _README.format(name="tally")}


def _check_digest(final: Files, answer: str) -> bool:
    return mentions(answer, DIGEST) and unchanged(final, FILES_DIGEST)


def _check_failures(final: Files, answer: str) -> bool:
    return mentions(answer, "7", "seven") and unchanged(final, FILES_GAUGE)


def _check_header_fixed(final: Files, answer: str) -> bool:
    return changed_exactly(final, FILES_PELICAN, {"pelican/nest.py": _SPDX + _PELICAN_NEST})


def _check_tally_saved(final: Files, answer: str) -> bool:
    return (final.get("tally.txt") or "").strip() == TALLY and unchanged(final, FILES_TALLY)


def _check_rounding_fixed(final: Files, answer: str) -> bool:
    ns = load_module(final.get("rounding.py"))
    cases = {0.29: 29, 3.0: 300, 0.57: 57, 1.15: 115, 19.99: 1999}
    return (all(call_is(ns, "to_cents", (x,), c) for x, c in cases.items())
            and call_is(ns, "from_cents", (1999,), 19.99) and unchanged(final, FILES_ROUNDING, ["rounding.py"]))


CHORES_RUN: list[Chore] = [
    Chore("t_run_report_output", "run", FILES_DIGEST, "what does python3 scripts/digest.py print?", _check_digest),
    Chore("t_run_count_failures", "run", FILES_GAUGE,
          "Run the tests (they live in checks/, python3 -m unittest discover -s checks) and tell me how many fail.",
          _check_failures),
    Chore("t_run_lint_and_fix", "run", FILES_PELICAN, "run python3 lint_headers.py and fix whatever it complains about",
          _check_header_fixed, steps=3),
    Chore("t_run_save_output", "run", FILES_TALLY, "Run the tally script and put its output in tally.txt.",
          _check_tally_saved, steps=2),
    Chore("t_run_fix_failing_test", "run", FILES_ROUNDING,
          "The tests in test_rounding.py fail. Find out why and fix the code, not the tests.",
          _check_rounding_fixed, steps=3),
]
