"""Development chores added for issue 24: moving files and folders (``move``), and one change that spans
two or more files (``multi``).

A move is solved only when the old path is gone, the new one holds the identical content and nothing
else changed; a multi-file change only when every file that must change did, exactly, and no other.
"""

from __future__ import annotations

from chorebase import Chore, Files, changed_exactly, move_chore, renamed_word

_README = "# demo\n\nA small project used for a chore.\n"

# -- move ----------------------------------------------------------------------------------------------

FILES_DRAFT: Files = {"draft_plan.txt": "1. pick a venue\n2. send invites by the 9th\n",
                      "budget.txt": "venue 1200\nfood 800\n", "README.md": _README}
FILES_HELPERS: Files = {"csvtools.py": "def split_row(row: str) -> list[str]:\n    return row.split(',')\n",
                        "lib/dates.py": "def iso(d) -> str:\n    return d.isoformat()\n",
                        "README.md": _README}
FILES_IMG: Files = {"img/logo.svg": '<svg xmlns="http://www.w3.org/2000/svg"/>\n',
                    "img/crest.txt": "crest placeholder\n", "site.html": "<h1>site</h1>\n",
                    "README.md": _README}


CHORES_MOVE: list[Chore] = [
    move_chore("move_rename_file", FILES_DRAFT, "Rename draft_plan.txt to plan.txt.", "draft_plan.txt", "plan.txt"),
    move_chore("move_into_folder", FILES_HELPERS, "Move csvtools.py into the lib/ folder.", "csvtools.py",
          "lib/csvtools.py"),
    move_chore("move_folder", FILES_IMG, "Rename the folder img to images (keep every file in it).", "img", "images"),
]

# -- multi ---------------------------------------------------------------------------------------------

_TOTALS = "def get_total(prices: list[float]) -> float:\n    return sum(prices)\n"
_CART = "from totals import get_total\n\n\ndef checkout(items: list[float]) -> str:\n" \
        "    return f'due: {get_total(items)}'\n"
_RECEIPT = "from totals import get_total\n\nprint(get_total([1.5, 2.25]))\n"
FILES_TOTALS: Files = {"totals.py": _TOTALS, "cart.py": _CART, "receipt.py": _RECEIPT, "README.md": _README}

_PAGING = '"""Paging for the list endpoint."""\n\nPAGE_LIMIT = 50\n'
_TEST_PAGING = ("import unittest\n\nfrom paging import PAGE_LIMIT\n\n\nclass PagingTests(unittest.TestCase):\n"
                "    def test_limit(self):\n        self.assertEqual(PAGE_LIMIT, 50)\n")
FILES_PAGING: Files = {"paging.py": _PAGING, "test_paging.py": _TEST_PAGING, "README.md": _README}

_SETTINGS = "[mail]\nsmtp_server = mail.example.invalid\nsender = robot@example.invalid\n"
_MAILER = ("import configparser\n\ncfg = configparser.ConfigParser()\ncfg.read('mail.ini')\n"
           "SERVER = cfg['mail']['smtp_server']\nSENDER = cfg['mail']['sender']\n")
FILES_MAIL: Files = {"mail.ini": _SETTINGS, "mailer.py": _MAILER, "README.md": _README}


def _multi(name: str, files: Files, task: str, changes: dict[str, str | None], steps: int = 2) -> Chore:
    def check(final: Files, answer: str) -> bool:
        return changed_exactly(final, files, changes)
    return Chore(name, "multi", files, task, check, steps)


CHORES_MULTI: list[Chore] = [
    _multi("multi_rename_function", FILES_TOTALS,
           "Rename the function get_total to compute_total, in its definition and everywhere it is used.",
           {p: renamed_word(FILES_TOTALS[p], "get_total", "compute_total") for p in ("totals.py", "cart.py",
                                                                                   "receipt.py")}),
    _multi("multi_constant_and_test", FILES_PAGING,
           "Change PAGE_LIMIT in paging.py to 75 and update the test that expects the old value.",
           {"paging.py": _PAGING.replace("= 50", "= 75"), "test_paging.py": _TEST_PAGING.replace(", 50)", ", 75)")}),
    _multi("multi_rename_config_key", FILES_MAIL,
           "Rename the config key smtp_server to smtp_host in mail.ini and in the code that reads it.",
           {p: renamed_word(FILES_MAIL[p], "smtp_server", "smtp_host") for p in ("mail.ini", "mailer.py")}),
]
