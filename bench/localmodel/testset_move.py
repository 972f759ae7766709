"""Frozen test set (issue 24): moving or renaming files and folders (``move``) and one change spanning
two or more files (``multi``).

Written 2026-12-02, before any tuning on it; never edit a chore to fit results (a chore found broken
is replaced by a new one under a new name, and the change is said in the README). Themes, file names,
identifiers and values differ from every development chore. The near miss the issue names: "rename the
file X to Y" is a move (content identical, nothing else touched) while "rename the function f to g"
is a multi-file edit (the definition and every call site, and no file moved).
"""

from __future__ import annotations

from chorebase import Chore, Files, changed_exactly, move_chore, renamed_word

_README = "# {name}\n\nNotes for whoever picks this up.\n"

# -- move ----------------------------------------------------------------------------------------------

FILES_PRUNE: Files = {"scripts/cleanup_logs.py": "import pathlib\n\nfor p in pathlib.Path('logs').glob('*.gz'):\n"
                                                 "    p.unlink()\n",
                      "scripts/rotate.sh": "#!/bin/sh\nlogrotate -f rotate.conf\n",
                      "README.md": _README.format(name="ops")}
FILES_STANDUP: Files = {"standup-notes.md": "- Ana: tile cache\n- Rui: flaky upload test\n",
                        "docs/onboarding.md": "# Onboarding\n", "README.md": _README.format(name="team")}
FILES_SAMPLES: Files = {"samples/basic.toml": 'level = "basic"\n', "samples/full.toml": 'level = "full"\n',
                        "samples/nested/edge.toml": 'level = "edge"\n',
                        "sampler.py": "def pick(n: int) -> int:\n    return n % 3\n",
                        "README.md": _README.format(name="sampler")}
FILES_INI: Files = {"bittern.sample.ini": "[bittern]\nmode = demo\nseed = 2718\n", "etc/logging.ini": "[loggers]\n",
                    "bittern.py": "print('bittern')\n", "README.md": _README.format(name="bittern")}
FILES_CHANGES: Files = {"CHANGES.txt": "v2.4.0\n  - pause button\nv2.3.1\n  - crash on empty queue\n",
                        "setup.py": "from setuptools import setup\n\nsetup(name='lumen')\n",
                        "README.md": _README.format(name="lumen")}


CHORES_MOVE: list[Chore] = [
    move_chore("t_move_rename_file", FILES_PRUNE, "rename the file scripts/cleanup_logs.py to scripts/prune_logs.py",
          "scripts/cleanup_logs.py", "scripts/prune_logs.py"),
    move_chore("t_move_into_docs", FILES_STANDUP, "Could you move standup-notes.md into the docs folder?",
          "standup-notes.md", "docs/standup-notes.md"),
    move_chore("t_move_folder", FILES_SAMPLES, "Rename the samples directory to examples.", "samples", "examples"),
    move_chore("t_move_typo", FILES_INI, "mvoe bittern.sample.ini into etc/", "bittern.sample.ini",
          "etc/bittern.sample.ini"),
    move_chore("t_move_extension", FILES_CHANGES, "Rename CHANGES.txt to CHANGES.md, content as is.", "CHANGES.txt",
          "CHANGES.md"),
]

# -- multi ---------------------------------------------------------------------------------------------

_FETCH = ("import sqlite3\n\n\ndef fetch_rows(db: str, table: str) -> list[tuple]:\n"
          "    with sqlite3.connect(db) as conn:\n        return conn.execute(f'SELECT * FROM {table}').fetchall()\n")
_EXPORT = ("from store.query import fetch_rows\n\n\ndef export_csv(db: str) -> str:\n"
           "    return '\\n'.join(','.join(map(str, r)) for r in fetch_rows(db, 'shipments'))\n")
_AUDIT = ("from store.query import fetch_rows\n\n\ndef audit(db: str) -> int:\n"
          "    return len(fetch_rows(db, 'audit'))\n")
FILES_FETCH: Files = {"store/query.py": _FETCH, "store/export.py": _EXPORT, "store/audit.py": _AUDIT,
                      "README.md": _README.format(name="store")}

_CHUNKER = '"""Splits uploads into chunks."""\n\nDEFAULT_CHUNK = 1280\n\n\ndef chunk_count(n: int) -> int:\n' \
           "    return -(-n // DEFAULT_CHUNK)\n"
_TEST_CHUNKER = ("import unittest\n\nfrom chunker import DEFAULT_CHUNK, chunk_count\n\n\n"
                 "class ChunkerTests(unittest.TestCase):\n    def test_default(self):\n"
                 "        self.assertEqual(DEFAULT_CHUNK, 1280)\n\n    def test_one_byte(self):\n"
                 "        self.assertEqual(chunk_count(1), 1)\n")
FILES_CHUNK: Files = {"chunker.py": _CHUNKER, "test_chunker.py": _TEST_CHUNKER, "README.md": _README.format(name="up")}

_SPOOL = "class SpoolWriter:\n    def __init__(self, path: str) -> None:\n        self.path = path\n"
_SPOOL_USE = "from spool.writer import SpoolWriter\n\nDEFAULT = SpoolWriter('/var/spool/ibis')\n"
_SPOOL_TEST = "from spool.writer import SpoolWriter\n\n\ndef test_path():\n    assert SpoolWriter('x').path == 'x'\n"
FILES_SPOOL: Files = {"spool/writer.py": _SPOOL, "spool/defaults.py": _SPOOL_USE, "test_spool.py": _SPOOL_TEST,
                      "README.md": _README.format(name="ibis")}

_DB_TOML = '[db]\ndb_host = "10.4.7.21"\nport = 5433\n'
_DB_PY = ("import tomllib\n\nwith open('warehouse.toml', 'rb') as fh:\n    DB = tomllib.load(fh)['db']\n\n"
          "HOST = DB['db_host']\nPORT = DB['port']\n")
FILES_WAREHOUSE: Files = {"warehouse.toml": _DB_TOML, "warehouse_db.py": _DB_PY,
                          "README.md": _README.format(name="warehouse")}

_BANNER = "from slugs import make_slug\n\nprint(make_slug('Hello There'))\n"
FILES_SLUGS: Files = {"slugs.py": "def make_slug(s: str) -> str:\n    return '-'.join(s.lower().split())\n",
                      "banner.py": _BANNER, "util/mathbits.py": "def half(x: float) -> float:\n    return x / 2\n",
                      "README.md": _README.format(name="slugs")}


def _multi(name: str, files: Files, task: str, changes: dict[str, str | None], steps: int = 2) -> Chore:
    def check(final: Files, answer: str) -> bool:
        return changed_exactly(final, files, changes)
    return Chore(name, "multi", files, task, check, steps)


def _renamed(files: Files, old: str, new: str, paths: tuple[str, ...]) -> dict[str, str | None]:
    return {p: renamed_word(files[p], old, new) for p in paths}


def _check_slugs_moved(final: Files, answer: str) -> bool:
    """slugs.py moved to util/slugs.py unchanged; banner.py's import line (only) points at its new home."""
    rest = {p: t for p, t in final.items() if p not in ("util/slugs.py", "banner.py")}
    want_rest = {p: t for p, t in FILES_SLUGS.items() if p not in ("slugs.py", "banner.py")}
    banner = final.get("banner.py", "").splitlines()
    new_import = banner[0].strip() if banner else ""
    return (rest == want_rest and final.get("util/slugs.py") == FILES_SLUGS["slugs.py"]
            and new_import in ("from util.slugs import make_slug", "from .util.slugs import make_slug")
            and banner[1:] == _BANNER.splitlines()[1:])


CHORES_MULTI: list[Chore] = [
    _multi("t_multi_rename_function", FILES_FETCH, "rename the function fetch_rows to load_rows",
           _renamed(FILES_FETCH, "fetch_rows", "load_rows", ("store/query.py", "store/export.py", "store/audit.py"))),
    _multi("t_multi_constant_and_test", FILES_CHUNK,
           "Change DEFAULT_CHUNK to 3072 and fix the test that checks its value.",
           {"chunker.py": _CHUNKER.replace("= 1280", "= 3072"),
            "test_chunker.py": _TEST_CHUNKER.replace("DEFAULT_CHUNK, 1280)", "DEFAULT_CHUNK, 3072)")}),
    _multi("t_multi_rename_class", FILES_SPOOL, "Please rename class SpoolWriter to SpoolSink across the project.",
           _renamed(FILES_SPOOL, "SpoolWriter", "SpoolSink", ("spool/writer.py", "spool/defaults.py",
                                                             "test_spool.py"))),
    _multi("t_multi_config_key", FILES_WAREHOUSE,
           "the key db_host should be called host now. update warehouse.toml and the code reading it",
           _renamed(FILES_WAREHOUSE, "db_host", "host", ("warehouse.toml", "warehouse_db.py"))),
    Chore("t_multi_move_and_import", "multi", FILES_SLUGS,
          "Move slugs.py into the util/ folder and fix the import in banner.py so it still works.", _check_slugs_moved,
          steps=3),
]
