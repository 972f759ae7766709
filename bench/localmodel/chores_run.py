"""Chores that run a command and report on it (or act on what it printed).

The scripts compute their output, so the value is not written in any file: the answer is right
only if the command was run (or the computation done exactly).
"""

from __future__ import annotations

import hashlib

from chorebase import Chore, Files, lines, mentions, unchanged

_README = "# tools\n\nHelper scripts for the release.\n"

_CHECKSUM_PY = ('"""Prints the release checksum."""\n\nWORD = "larkspur-relay"\n\n'
                "print(sum(ord(c) * (i + 3) for i, c in enumerate(WORD)) % 10007)\n")
CHECKSUM = str(sum(ord(c) * (i + 3) for i, c in enumerate("larkspur-relay")) % 10007)

_TOKEN_PY = ('import hashlib\n\nprint(hashlib.sha256(b"axolotl-meadow").hexdigest()[:14])\n')
TOKEN = hashlib.sha256(b"axolotl-meadow").hexdigest()[:14]

_CONVERT_PY = ("def c_to_k(c: float) -> float:\n    return c + 273.15\n\n\n"
               "def c_to_f(c: float) -> float:\n    return c * 9 / 5 + 32\n\n\n"
               "def k_to_c(k: float) -> float:\n    return k - 273.0\n")
_CONVERT_TESTS = ("import unittest\n\nfrom convert import c_to_f, c_to_k, k_to_c\n\n\n"
                  "class ConvertTests(unittest.TestCase):\n"
                  "    def test_freezing_in_fahrenheit(self):\n        self.assertEqual(c_to_f(0), 32)\n\n"
                  "    def test_boiling_in_fahrenheit(self):\n        self.assertEqual(c_to_f(100), 212)\n\n"
                  "    def test_kelvin_from_celsius(self):\n        self.assertAlmostEqual(c_to_k(0), 273.15)\n\n"
                  "    def test_kelvin_offset_roundtrip(self):\n        self.assertAlmostEqual(k_to_c(c_to_k(21.5)), 21.5)\n"
                  "\n\nif __name__ == '__main__':\n    unittest.main()\n")
FILES_CONVERT: Files = {"convert.py": _CONVERT_PY, "test_convert.py": _CONVERT_TESTS, "README.md": _README}


def _test_module(prefix: str, n: int) -> str:
    body = ["import unittest\n\n\nclass T(unittest.TestCase):\n"]
    for i in range(n):
        body.append(f"    def test_{prefix}_{i:02d}(self):\n        self.assertEqual({i} * 2, {2 * i})\n\n")
    return "".join(body)


FILES_COUNT: Files = {"tests/__init__.py": "", "tests/test_parse.py": _test_module("parse", 4),
                      "tests/test_store.py": _test_module("store", 7), "README.md": _README}

_CHECK_CONFIG_PY = ('"""Checks app.ini; prints OK or the first bad key."""\n\nimport configparser\nimport sys\n\n'
                    "cfg = configparser.ConfigParser()\ncfg.read('app.ini')\nw = cfg['server'].getint('workers')\n"
                    "if not 1 <= w <= 16:\n    print(f'bad key: workers={w} (must be 1..16)')\n    sys.exit(1)\n"
                    "print('OK')\n")
_APP_INI = "[server]\nbind = 127.0.0.1\nworkers = 64\nqueue = jobs\n"
FILES_INI: Files = {"check_config.py": _CHECK_CONFIG_PY, "app.ini": _APP_INI, "README.md": _README}


def _check_checksum(final: Files, answer: str) -> bool:
    return mentions(answer, CHECKSUM) and unchanged(final, FILES_CHECKSUM)


def _check_failing_test(final: Files, answer: str) -> bool:
    others = ("test_freezing_in_fahrenheit", "test_boiling_in_fahrenheit", "test_kelvin_from_celsius")
    return mentions(answer, "test_kelvin_offset_roundtrip") and not mentions(answer, *others) \
        and unchanged(final, FILES_CONVERT)


def _check_count(final: Files, answer: str) -> bool:
    return mentions(answer, "11", "eleven") and unchanged(final, FILES_COUNT)


def _check_token_saved(final: Files, answer: str) -> bool:
    return (final.get("token.txt") or "").strip() == TOKEN and unchanged(final, FILES_TOKEN)


def _check_workers_fixed(final: Files, answer: str) -> bool:
    before, after = lines(_APP_INI), lines(final.get("app.ini"))
    if len(after) != len(before):
        return False
    rest_same = [a for a, b in zip(before, after, strict=True) if a != b] == ["workers = 64"]
    new = after[before.index("workers = 64")].replace(" ", "")
    ok_value = new.startswith("workers=") and new[8:].isdigit() and 1 <= int(new[8:]) <= 16
    return rest_same and ok_value and unchanged(final, FILES_INI, ["app.ini"])


FILES_CHECKSUM: Files = {"tools/checksum.py": _CHECKSUM_PY, "README.md": _README}
FILES_TOKEN: Files = {"gen_token.py": _TOKEN_PY, "README.md": _README}

CHORES_RUN: list[Chore] = [
    Chore("run_script_report", "run", FILES_CHECKSUM,
          "Run python3 tools/checksum.py and tell me the number it prints.", _check_checksum),
    Chore("run_tests_which_fails", "run", FILES_CONVERT,
          "Run the tests with python3 -m unittest and tell me the name of the test that fails.",
          _check_failing_test),
    Chore("run_tests_count", "run", FILES_COUNT,
          "Run python3 -m unittest discover -s tests -v and tell me how many tests ran.", _check_count),
    Chore("run_and_save", "run", FILES_TOKEN,
          "Run python3 gen_token.py and save exactly what it prints into a new file token.txt.",
          _check_token_saved, steps=2),
    Chore("run_check_then_fix", "run", FILES_INI,
          "Run python3 check_config.py. It reports a bad value in app.ini; fix that value so the check "
          "prints OK.", _check_workers_fixed, steps=3),
]
