"""Frozen test set (issue 24): questions whose answer lives in the project's code or data.

Written 2026-12-02, before any tuning on it; never edit a chore to fit results (a chore found broken
is replaced by a new one under a new name, and the change is said in the README). Themes, file names,
identifiers and values differ from every development chore. The fixture never changes: a question is
solved only by an answer naming the right value; a look-alike value sits beside most of them.
"""

from __future__ import annotations

from chorebase import Chore, Files, mentions, unchanged

_README = "# {name}\n\nInternal tool, see the code.\n"


def _ask(name: str, files: Files, task: str, accepted: tuple[str, ...], steps: int = 1) -> Chore:
    def check(final: Files, answer: str) -> bool:
        return mentions(answer, *accepted) and unchanged(final, files)
    return Chore(name, "ask", files, task, check, steps)


def _stations_csv() -> str:
    rows = ["station,region,status,last_seen"]
    for i in range(31):
        status = "offline" if i % 9 in (2, 5) or i in (7, 29) else "online"
        rows.append(f"ST-{3100 + i * 13},{('north', 'coast', 'ridge')[i % 3]},{status},2026-11-{1 + i % 28:02d}")
    return "\n".join(rows) + "\n"


OFFLINE_STATIONS = str(sum(",offline," in row for row in _stations_csv().splitlines()))

_PETREL_LOADER = ('"""Reads petrel.toml, filling in what it leaves out."""\n\nimport tomllib\n\n\n'
                  "def load_settings(path: str = 'petrel.toml') -> dict:\n    with open(path, 'rb') as fh:\n"
                  "        raw = tomllib.load(fh).get('sync', {})\n    return {\n"
                  "        'endpoint': raw.get('endpoint', 'https://sync.petrel.invalid'),\n"
                  "        'retries': int(raw.get('retries', 17)),\n"
                  "        'pause_ms': int(raw.get('pause_ms', 640)),\n    }\n")
_KESTREL_PATHS = ('"""Where kestrel keeps things on disk."""\n\nimport os\nfrom pathlib import Path\n\n\n'
                  "def scratch_root() -> Path:\n"
                  "    return Path(os.environ.get('KESTREL_SCRATCH_ROOT') or Path.home() / '.kestrel')\n\n\n"
                  "def log_folder() -> Path:\n    return Path(os.environ.get('KESTREL_LOGS_AT', '/tmp/kestrel-logs'))\n")
_KESTREL_CACHE = ('"""A cache of fetched tiles, kept under scratch_root()."""\n\nfrom kestrel.paths import '
                  "scratch_root\n\n\ndef tile_cache_dir():\n    return scratch_root() / 'tiles'\n")
_TIDES = ("import math\n\n\ndef compute_tide_offset(hour: float, amplitude_m: float) -> float:\n"
          "    return amplitude_m * math.sin(hour / 12.42 * 2 * math.pi)\n")
_INGEST_BOUNDS = '"""Bounds the importer enforces."""\n\nBATCH_CEILING = 1536\nFIELD_LIMIT = 257\n'
_INGEST_IMPORTER = ("from ingest.bounds import BATCH_CEILING\n\n\ndef import_rows(rows: list[dict]) -> int:\n"
                    "    if len(rows) > BATCH_CEILING:\n        raise ValueError('batch too large')\n"
                    "    return len(rows)\n")
_DOCKERFILE = ("FROM python:3.12-slim\nWORKDIR /srv/wren\nCOPY . .\nRUN pip install --no-cache-dir .\n"
               "ENV WREN_WORKERS=3\nEXPOSE 6173\nCMD [\"python\", \"-m\", \"wren.serve\"]\n")
_COMPOSE = ("services:\n  wren:\n    build: .\n    ports:\n      - \"18443:6173\"\n"
            "  redis:\n    image: redis:7\n")
_HOOK_SH = ("#!/bin/sh\n# pre-push hook: refuse pushes while the marker file exists\n"
            "test -e .hold-pushes && { echo 'pushes on hold'; exit 41; }\nexit 0\n")

CHORES_ASK: list[Chore] = [
    _ask("t_ask_default_retries",
         {"petrel/loader.py": _PETREL_LOADER,
          "petrel.toml": '[sync]\nendpoint = "https://mirror.petrel.invalid"\npause_ms = 900\n',
          "README.md": _README.format(name="petrel")},
         "what does the `retries` setting default to when petrel.toml doesn't set it?", ("17",)),
    _ask("t_ask_env_var",
         {"kestrel/paths.py": _KESTREL_PATHS, "kestrel/tilecache.py": _KESTREL_CACHE,
          "README.md": _README.format(name="kestrel")},
         "which env var sets the cache dir?", ("KESTREL_SCRATCH_ROOT",), steps=2),
    _ask("t_ask_where_defined",
         {"harbor/almanac/tides.py": _TIDES,
          "harbor/almanac/moon.py": "def phase(day: int) -> float:\n    return (day % 29.53) / 29.53\n",
          "harbor/charts.py": "from harbor.almanac.tides import compute_tide_offset\n\n\n"
                              "def plot(hours):\n    return [compute_tide_offset(h, 1.8) for h in hours]\n",
          "README.md": _README.format(name="harbor")},
         "where is compute_tide_offset definde?", ("harbor/almanac/tides.py", "almanac/tides.py", "tides.py")),
    _ask("t_ask_count_matching_rows",
         {"telemetry/stations.csv": _stations_csv(), "README.md": _README.format(name="telemetry")},
         "How many stations in telemetry/stations.csv have the status offline?", (OFFLINE_STATIONS,)),
    _ask("t_ask_container_port",
         {"Dockerfile": _DOCKERFILE, "compose.yaml": _COMPOSE,
          "wren/serve.py": "import os\n\nWORKERS = int(os.environ.get('WREN_WORKERS', '1'))\n",
          "README.md": _README.format(name="wren")},
         "What port does the container listen on inside (the one the Dockerfile exposes)?", ("6173",)),
    _ask("t_ask_value_in_code",
         {"ingest/bounds.py": _INGEST_BOUNDS, "ingest/importer.py": _INGEST_IMPORTER,
          "README.md": _README.format(name="ingest")},
         "Hey, quick one: what's the biggest batch the importer accepts? It's somwhere in the code.", ("1536",), steps=2),
    _ask("t_ask_exit_code",
         {"hooks/pre-push": _HOOK_SH, "README.md": _README.format(name="hooks")},
         "If pushes are on hold, what exit code does the pre-push hook in hooks/ return?", ("41",)),
]
