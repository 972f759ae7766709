"""Chores that change the project: change a line, create a file, delete a file.

Each checker demands the asked-for change and that every other fixture file is left as it was.
"""

from __future__ import annotations

from chorebase import Chore, Files, call_is, lines, load_module, only_line_changed, unchanged

# -- edit ----------------------------------------------------------------------------------------------

_SERVER_CFG = "# gateway settings\nhost = 0.0.0.0\nport = 8080\nworkers = 3\nlog_file = gateway.log\n"
_INTRO = ("# Larkspur\n\nWelcom to Larkspur, a tiny job queue.\n\nIt stores jobs in SQLite and runs them "
          "in order.\n")
_LIMITS = "\"\"\"Client limits.\"\"\"\n\nMAX_RETRIES = 3\nTIMEOUT_S = 20\nUSER_AGENT = 'larkspur/1.0'\n"
_OPS = ("def add(a: int, b: int) -> int:\n    return a + b\n\n\ndef subtract(a: int, b: int) -> int:\n"
        "    return a + b\n\n\ndef multiply(a: int, b: int) -> int:\n    return a * b\n")
_YAML = "service: thornfield\nlog_level: debug\nreplicas: 2\nregion: eu-west\n"
_REQS = "click==8.1.7\nrich==13.7.1\ntomli==2.0.1\n"
_README = "# demo\n\nA small project used for a chore.\n"


def _edit(name: str, files: Files, task: str, path: str, old: str, new_pattern: str) -> Chore:
    def check(final: Files, answer: str) -> bool:
        return only_line_changed(files[path], final.get(path), old, new_pattern) and unchanged(final, files, [path])
    return Chore(name, "edit", files, task, check)


def _check_subtract(final: Files, answer: str) -> bool:
    ns = load_module(final.get("mathx/ops.py"))
    return (call_is(ns, "subtract", (10, 3), 7) and call_is(ns, "subtract", (2, 9), -7)
            and call_is(ns, "add", (4, 5), 9) and call_is(ns, "multiply", (6, 7), 42)
            and unchanged(final, FILES_OPS, ["mathx/ops.py"]))


def _check_requirement(final: Files, answer: str) -> bool:
    got = [ln.strip() for ln in lines(final.get("requirements.txt")) if ln.strip()]
    return sorted(got) == sorted([*_REQS.split(), "cachetools==5.3.3"]) and unchanged(final, FILES_REQS,
                                                                                      ["requirements.txt"])


FILES_OPS: Files = {"mathx/__init__.py": "", "mathx/ops.py": _OPS, "README.md": _README}
FILES_REQS: Files = {"requirements.txt": _REQS, "README.md": _README, "app.py": "import click\n"}

CHORES_EDIT: list[Chore] = [
    _edit("edit_port", {"server.cfg": _SERVER_CFG, "README.md": _README},
          "In server.cfg, change the port from 8080 to 9417.", "server.cfg", "port = 8080", r"port\s*=\s*9417"),
    _edit("edit_typo", {"docs/intro.md": _INTRO, "README.md": _README},
          "Fix the misspelled word in the first sentence of docs/intro.md.", "docs/intro.md",
          "Welcom to Larkspur, a tiny job queue.", r"Welcome to Larkspur, a tiny job queue\."),
    _edit("edit_constant", {"app/__init__.py": "", "app/limits.py": _LIMITS, "README.md": _README},
          "Set MAX_RETRIES in app/limits.py to 12.", "app/limits.py", "MAX_RETRIES = 3",
          r"MAX_RETRIES\s*=\s*12"),
    _edit("edit_yaml_value", {"deploy.yaml": _YAML, "README.md": _README},
          "Change the log level in deploy.yaml from debug to warning.", "deploy.yaml", "log_level: debug",
          r"log_level:\s*[\"']?warning[\"']?"),
    Chore("edit_fix_subtract", "edit", FILES_OPS,
          "The subtract function in mathx/ops.py adds its arguments instead of subtracting them. Fix it.",
          _check_subtract),
    Chore("edit_add_requirement", "edit", FILES_REQS,
          "Add the line cachetools==5.3.3 to requirements.txt, keeping the lines already there.",
          _check_requirement),
]

# -- create --------------------------------------------------------------------------------------------

_DB_TOML = '[database]\nname = "orchid_ledger_42"\nuser = "svc_orchid"\npool = 5\n'
FILES_PLAIN: Files = {"README.md": _README, "main.py": "print('hi')\n"}
FILES_DB: Files = {"config/db.toml": _DB_TOML, "README.md": _README}


def _check_notes(final: Files, answer: str) -> bool:
    return (final.get("NOTES.txt") or "").strip() == "deploy window is Thursday 14:30" and unchanged(final, FILES_PLAIN)


def _check_gitignore(final: Files, answer: str) -> bool:
    got = {ln.strip() for ln in lines(final.get(".gitignore"))}
    return bool(got & {"build/", "/build/", "build", "/build", "build/*", "build/**"}) and "*.log" in got \
        and unchanged(final, FILES_PLAIN)


def _check_greet(final: Files, answer: str) -> bool:
    ns = load_module(final.get("greet.py"))
    return call_is(ns, "greet", ("Ada",), "Hello, Ada!") and call_is(ns, "greet", ("Bo",), "Hello, Bo!") \
        and unchanged(final, FILES_PLAIN)


def _check_dbname(final: Files, answer: str) -> bool:
    return (final.get("dbname.txt") or "").strip() == "orchid_ledger_42" and unchanged(final, FILES_DB)


CHORES_CREATE: list[Chore] = [
    Chore("create_notes", "create", FILES_PLAIN,
          "Create a file NOTES.txt whose only content is the line: deploy window is Thursday 14:30", _check_notes),
    Chore("create_gitignore", "create", FILES_PLAIN,
          "Create a .gitignore file that ignores the build/ directory and all *.log files.", _check_gitignore),
    Chore("create_greet_module", "create", FILES_PLAIN,
          "Create greet.py with a function greet(name) that returns 'Hello, ' followed by the name and '!', "
          "for example greet('Ada') returns 'Hello, Ada!'.", _check_greet),
    Chore("create_from_config", "create", FILES_DB,
          "Read the database name from config/db.toml and write just that name into a new file dbname.txt.",
          _check_dbname, steps=2),
]

# -- delete --------------------------------------------------------------------------------------------

FILES_OLD: Files = {"old_notes.txt": "meeting moved to room 4\n", "notes.txt": "current notes\n",
                    "README.md": _README}
FILES_SCRATCH: Files = {"scratch/tmp_4471.json": '{"partial": true}\n', "scratch/tmp_4417.json": '{"keep": 1}\n',
                        "scratch/summary.json": '{"rows": 12}\n', "README.md": _README}
FILES_FIXT: Files = {"fixtures/alpha.json": '{"id": 1, "state": "active"}\n',
                     "fixtures/bravo.json": '{"id": 2, "state": "active"}\n',
                     "fixtures/charlie.json": '{"id": 3, "state": "OBSOLETE"}\n',
                     "fixtures/delta.json": '{"id": 4, "state": "active"}\n', "README.md": _README}


def _delete(name: str, files: Files, task: str, gone: str, steps: int = 1) -> Chore:
    def check(final: Files, answer: str) -> bool:
        return gone not in final and unchanged(final, files, [gone])
    return Chore(name, "delete", files, task, check, steps)


CHORES_DELETE: list[Chore] = [
    _delete("delete_file", FILES_OLD, "Delete the file old_notes.txt; it is no longer needed.", "old_notes.txt"),
    _delete("delete_in_dir", FILES_SCRATCH, "Delete scratch/tmp_4471.json.", "scratch/tmp_4471.json"),
    _delete("delete_by_content", FILES_FIXT,
            "One of the JSON files in fixtures/ is marked OBSOLETE. Delete that file and no other.",
            "fixtures/charlie.json", steps=2),
]
