"""Frozen test set (issue 24): chores that edit a file, create one, or delete what was asked.

Written 2026-12-02, before any tuning on it; never edit a chore to fit results (a chore found broken
is replaced by a new one under a new name, and the change is said in the README). Themes, file names,
identifiers and values differ from every development chore. Near misses on purpose: "remove the
debug print from webhook.py", "delete the line … from portal.toml" and "drop the column … from
data.csv" are edits (the file must survive); a delete removes exactly what was asked. Every checker
demands the asked-for change and the rest of the project exactly as it was (nothing added or removed).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from chorebase import Checker, Chore, Files, call_is, changed_exactly, lines, load_module

_README = "# {name}\n\nSee the source for details.\n"


def _change(name: str, kind: str, files: Files, task: str, changes: dict[str, str | None], steps: int = 1) -> Chore:
    def check(final: Files, answer: str) -> bool:
        return changed_exactly(final, files, changes)
    return Chore(name, kind, files, task, check, steps)


# -- edit ----------------------------------------------------------------------------------------------

_WEBHOOK = ("import json\n\n\ndef handle(body: bytes) -> dict:\n    payload = json.loads(body)\n"
            "    print('DEBUG payload:', payload)\n    return {'ok': True, 'id': payload.get('id')}\n")
_PORTAL = ('[portal]\ntitle = "Marigold staff portal"\nallow_guest = true\nsession_minutes = 45\n')
_DATA_CSV = ("name,email,fax,city\nIlse Varga,ilse@example.invalid,+36 1 555 0192,Pecs\n"
             "Tomas Rhee,tomas@example.invalid,+82 2 555 0147,Busan\n"
             "Noor Haddad,noor@example.invalid,+962 6 555 0133,Irbid\n")
_DATA_NO_FAX = ("name,email,city\nIlse Varga,ilse@example.invalid,Pecs\nTomas Rhee,tomas@example.invalid,Busan\n"
                "Noor Haddad,noor@example.invalid,Irbid\n")
_SETUP_CFG = "[metadata]\nname = obsidian-tiles\nversion = 0.13.7\n\n[options]\npackages = find:\n"
_HERON_CONF = "# heron daemon\nlisten = localhost:7788\nworker_timeout = 30\nmax_body_kb = 256\n"
_CALUTIL = ("def is_leap(year: int) -> bool:\n    return year % 4 == 0\n\n\n"
            "def days_in_year(year: int) -> int:\n    return 366 if is_leap(year) else 365\n")
FILES_CAL: Files = {"calutil.py": _CALUTIL, "README.md": _README.format(name="calutil")}


def _check_leap(final: Files, answer: str) -> bool:
    ns = load_module(final.get("calutil.py"))
    years = {1900: False, 2000: True, 2024: True, 2023: False, 2100: False, 1996: True}
    return (all(call_is(ns, "is_leap", (y,), leap) for y, leap in years.items())
            and call_is(ns, "days_in_year", (1900,), 365) and call_is(ns, "days_in_year", (2000,), 366)
            and set(final) == set(FILES_CAL) and final["README.md"] == FILES_CAL["README.md"])


FILES_HOOK: Files = {"webhook.py": _WEBHOOK, "routes.py": "from webhook import handle\n\nROUTES = {'/hook': handle}\n",
                     "README.md": _README.format(name="hookd")}
FILES_PORTAL: Files = {"portal.toml": _PORTAL, "README.md": _README.format(name="portal")}
FILES_CSV: Files = {"data.csv": _DATA_CSV, "README.md": _README.format(name="contacts")}
FILES_SETUP: Files = {"setup.cfg": _SETUP_CFG, "obsidian_tiles.py": "TILE_PX = 384\n",
                      "README.md": _README.format(name="obsidian-tiles")}
FILES_HERON: Files = {"settings/heron.conf": _HERON_CONF,
                      "heron/daemon.py": "CONF = 'settings/heron.conf'\n\n\ndef serve() -> None:\n    ...\n",
                      "README.md": _README.format(name="heron")}

CHORES_EDIT: list[Chore] = [
    _change("t_edit_remove_debug_print", "edit", FILES_HOOK, "remove the debug print from webhook.py",
            {"webhook.py": _WEBHOOK.replace("    print('DEBUG payload:', payload)\n", "")}),
    _change("t_edit_delete_line", "edit", FILES_PORTAL, "Delete the line allow_guest = true from portal.toml.",
            {"portal.toml": _PORTAL.replace("allow_guest = true\n", "")}),
    _change("t_edit_drop_column", "edit", FILES_CSV, "drop the fax column from data.csv", {"data.csv": _DATA_NO_FAX}),
    _change("t_edit_bump_patch", "edit", FILES_SETUP, "Bump the patch version in setup.cfg.",
            {"setup.cfg": _SETUP_CFG.replace("0.13.7", "0.13.8")}, steps=2),
    _change("t_edit_unnamed_config", "edit", FILES_HERON,
            "could you please set the worker timeout to 475 seconds in the config file? thanks!",
            {"settings/heron.conf": _HERON_CONF.replace("worker_timeout = 30", "worker_timeout = 475")}, steps=2),
    Chore("t_edit_fix_leap_year", "edit", FILES_CAL,
          "is_leap in calutil.py says 1900 was a leap year. It wasn't (century years are leap only when "
          "divisible by 400). Fix it.", _check_leap),
]

# -- create --------------------------------------------------------------------------------------------

_SAFFRON_APP = ("import os\n\nDB_URL = os.environ['SAFFRON_DB_URL']\n"
                "TOKEN_TTL = int(os.environ.get('SAFFRON_TOKEN_TTL', '3600'))\n")
_SAFFRON_WORKER = "import os\n\nQUEUE = os.getenv('SAFFRON_QUEUE_NAME', 'default')\n"
FILES_SAFFRON: Files = {"saffron/web.py": _SAFFRON_APP, "saffron/worker.py": _SAFFRON_WORKER,
                        "README.md": _README.format(name="saffron")}
FILES_PAGER: Files = {"api/pagination.py": '"""Pagination for the REST API."""\n\nDEFAULT_PAGE_SIZE = 137\nMAX_PAGE_SIZE = 1000\n',
                      "api/views.py": "from api.pagination import DEFAULT_PAGE_SIZE\n",
                      "README.md": _README.format(name="pager")}
FILES_TEXTCASE: Files = {"README.md": _README.format(name="textcase"), "cli_tool.py": "import sys\n"}
FILES_JUNIPER: Files = {"juniper/run.py": "import json\n\nCFG = json.load(open('config/juniper.json'))\n",
                        "README.md": _README.format(name="juniper")}
FILES_ADR: Files = {"docs/adr/0006-queue-per-tenant.md": "# 6. One queue per tenant\n\nAccepted.\n",
                    "README.md": _README.format(name="outbox")}
ADR_PATH = "docs/adr/0007-outbox-in-sqlite.md"


def _created(files: Files, path: str, ok: Callable[[str], bool]) -> Checker:
    """Exactly one new file, ``path``, whose text passes ``ok``; the fixture's files untouched."""
    def check(final: Files, answer: str) -> bool:
        extra = set(final) - set(files)
        return extra == {path} and all(final.get(p) == t for p, t in files.items()) and ok(final[path])
    return check


def _env_example(text: str) -> bool:
    keys = {ln.split("=", 1)[0].strip() for ln in lines(text) if ln.strip() and not ln.lstrip().startswith("#")}
    values = {ln.split("=", 1)[1].strip() if "=" in ln else "?" for ln in lines(text)
              if ln.strip() and not ln.lstrip().startswith("#")}
    return keys == {"SAFFRON_DB_URL", "SAFFRON_TOKEN_TTL", "SAFFRON_QUEUE_NAME"} and values <= {"", '""', "''"}


def _kebab(text: str) -> bool:
    ns = load_module(text)
    return call_is(ns, "to_kebab", ("Hello Big World",), "hello-big-world") \
        and call_is(ns, "to_kebab", ("  Tidy   Up  ",), "tidy-up")


def _json_is(expected: dict[str, object]) -> Callable[[str], bool]:
    def ok(text: str) -> bool:
        try:
            return bool(json.loads(text) == expected)
        except ValueError:
            return False
    return ok


def _adr(text: str) -> bool:
    first = next((ln.strip() for ln in lines(text) if ln.strip()), "")
    return first == "# 7. Keep the outbox in SQLite"


CHORES_CREATE: list[Chore] = [
    Chore("t_create_env_example", "create", FILES_SAFFRON,
          "Create a .env.example listing every environment variable the code reads, one per line as NAME= "
          "with an empty value.", _created(FILES_SAFFRON, ".env.example", _env_example), steps=2),
    Chore("t_create_value_from_code", "create", FILES_PAGER,
          "put the default page size from api/pagination.py into a new file page_size.txt (just the number)",
          _created(FILES_PAGER, "page_size.txt", lambda t: t.strip() == "137"), steps=2),
    Chore("t_create_function", "create", FILES_TEXTCASE,
          "Add a new file textcase.py with a function to_kebab(s) that lowercases s and joins its words with "
          "dashes, e.g. to_kebab('Hello Big World') == 'hello-big-world'.",
          _created(FILES_TEXTCASE, "textcase.py", _kebab)),
    Chore("t_create_json", "create", FILES_JUNIPER,
          'create config/juniper.json containing {"mode": "batch", "threads": 7}',
          _created(FILES_JUNIPER, "config/juniper.json", _json_is({"mode": "batch", "threads": 7}))),
    Chore("t_create_in_subfolder", "create", FILES_ADR,
          f"new ADR please: {ADR_PATH}, first line '# 7. Keep the outbox in SQLite', nothing else needed",
          _created(FILES_ADR, ADR_PATH, _adr)),
]

# -- delete --------------------------------------------------------------------------------------------

FILES_MIGR: Files = {"old_migrations/0001_init.sql": "CREATE TABLE tally (id INTEGER);\n",
                     "old_migrations/0002_idx.sql": "CREATE INDEX tally_id ON tally (id);\n",
                     "migrations/0003_views.sql": "CREATE VIEW v_tally AS SELECT * FROM tally;\n",
                     "README.md": _README.format(name="tally")}
FILES_ORIG: Files = {"src/quarry/cut.py": "def cut(): ...\n", "src/quarry/cut.py.orig": "def cut(): pass\n",
                     "src/quarry/polish.py": "def polish(): ...\n", "docs/quarry.md.orig": "# old docs\n",
                     "docs/quarry.md": "# quarry\n", "notes.original": "keep me\n",
                     "README.md": _README.format(name="quarry")}
FILES_BACKUP: Files = {"marigold_backup.sql": "-- dump 2026-10-30\n", "marigold.sql": "-- schema\n",
                       "README.md": _README.format(name="marigold")}
FILES_EMPTY: Files = {"src/granite/core.py": "def run() -> int:\n    return 0\n", "src/granite/unused_helpers.py": "",
                      "src/granite/io.py": "def read(p):\n    return open(p).read()\n",
                      "README.md": _README.format(name="granite")}
FILES_REPORTS: Files = {"reports/2026-q3-draft.md": "# Q3 (draft)\n", "reports/2026-q3-final.md": "# Q3\n",
                        "reports/2026-q2-draft.md": "# Q2 (draft)\n", "README.md": _README.format(name="reports")}

CHORES_DELETE: list[Chore] = [
    _change("t_delete_folder", "delete", FILES_MIGR, "Delete the old_migrations folder, all of it.",
            {p: None for p in FILES_MIGR if p.startswith("old_migrations/")}),
    _change("t_delete_by_pattern", "delete", FILES_ORIG, "delete all the .orig files left over from the merge",
            {"src/quarry/cut.py.orig": None, "docs/quarry.md.orig": None}, steps=2),
    _change("t_delete_short", "delete", FILES_BACKUP, "rm marigold_backup.sql pls", {"marigold_backup.sql": None}),
    _change("t_delete_empty_file", "delete", FILES_EMPTY,
            "There's an empty python file somewhere under src/. Delete it.", {"src/granite/unused_helpers.py": None},
            steps=2),
    _change("t_delete_lookalike", "delete", FILES_REPORTS,
            "Please delete reports/2026-q3-draft.md, but keep the final one.", {"reports/2026-q3-draft.md": None}),
]
