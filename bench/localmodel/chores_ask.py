"""Questions about the project's files: a value in a named file, which file defines X, how many Y.

Every answer is a value that cannot be guessed without reading (or counting) the files, and the
fixture never changes: a question is solved only by the answer naming the right value.
"""

from __future__ import annotations

from chorebase import Chore, Files, mentions, unchanged

_APP = '"""Entry point."""\n\nfrom service import client\n\n\ndef main() -> None:\n    client.start()\n'


def _ask(name: str, files: Files, task: str, *accepted: str) -> Chore:
    def check(final: Files, answer: str) -> bool:
        return mentions(answer, *accepted) and unchanged(final, files)
    return Chore(name, "ask", files, task, check)


def _orders_csv() -> str:
    rows = ["order_id,customer,total_eur"]
    for i in range(23):
        rows.append(f"A-{5031 + i * 7},cust{(i * 13) % 17:02d},{(i * 37) % 200 + 5}.{(i * 11) % 100:02d}")
    return "\n".join(rows) + "\n"


def _strings_module() -> str:
    names = ["slugify", "truncate_words", "strip_accents", "is_blank", "pad_left", "camel_to_snake",
             "snake_to_camel", "count_vowels", "reverse_words"]
    body = ['"""Small string helpers."""\n\nimport re\n\n_WORD = re.compile(r"\\w+")\n']
    for n in names:
        body.append(f"\ndef {n}(text: str) -> str:\n    return text  # placeholder for {n.replace('_', ' ')}\n")
    return "".join(body)


CHORES_ASK: list[Chore] = [
    _ask("ask_ini_value",
         {"service/settings.ini": "[network]\nretries = 4\ntimeout_ms = 7341\nhost = 10.0.0.12\n\n"
                                  "[cache]\nttl_s = 90\n",
          "service/client.py": "import configparser\n\n\ndef start() -> None:\n    cfg = configparser."
                               "ConfigParser()\n    cfg.read('service/settings.ini')\n",
          "app.py": _APP},
         "What is timeout_ms set to in service/settings.ini?", "7341"),
    _ask("ask_pyproject_version",
         {"pyproject.toml": '[project]\nname = "fernbrook"\nversion = "3.18.29"\nrequires-python = ">=3.10"\n',
          "CHANGELOG.md": "# Changes\n\n## Unreleased\n\n- faster index\n\n## 3.17.4\n\n- first public build\n",
          "fernbrook/__init__.py": '"""Fernbrook: index helpers."""\n'},
         "Which version of the package does pyproject.toml declare?", "3.18.29"),
    _ask("ask_json_value",
         {"config/limits.json": '{\n  "max_users": 48,\n  "max_upload_mb": 613,\n  "max_sessions": 12,\n'
                                '  "burst": 3\n}\n',
          "config/README.md": "Limits for the upload service live in limits.json.\n",
          "upload.py": "import json\n\nLIMITS = json.load(open('config/limits.json'))\n"},
         "In config/limits.json, what is the value of max_upload_mb?", "613"),
    _ask("ask_which_file_function",
         {"src/billing/__init__.py": "",
          "src/billing/ledger.py": "from decimal import Decimal\n\n\ndef parse_invoice_line(line: str) -> "
                                   "tuple[str, Decimal]:\n    code, amount = line.split(';')\n"
                                   "    return code.strip(), Decimal(amount)\n",
          "src/billing/tax.py": "RATE = 0.19\n\n\ndef with_tax(x: float) -> float:\n    return x * (1 + RATE)\n",
          "src/report.py": "from billing.ledger import parse_invoice_line\n\n\ndef total(lines: list[str]) -> "
                           "float:\n    return sum(float(parse_invoice_line(ln)[1]) for ln in lines)\n",
          "src/cli.py": "import sys\n\nfrom report import total\n\nprint(total(sys.stdin.read().splitlines()))\n"},
         "Which file defines the function parse_invoice_line?", "src/billing/ledger.py", "billing/ledger.py",
         "ledger.py"),
    _ask("ask_which_file_class",
         {"lib/__init__.py": "",
          "lib/quota_store.py": "class QuotaTracker:\n    def __init__(self, limit: int) -> None:\n"
                                "        self.limit = limit\n        self.used = 0\n",
          "lib/usage.py": "from lib.quota_store import QuotaTracker\n\nTRACKER = QuotaTracker(250)\n",
          "lib/http.py": "def get(url: str) -> bytes:\n    raise NotImplementedError\n",
          "main.py": "from lib.usage import TRACKER\n\nprint(TRACKER.limit)\n"},
         "Which file defines the class QuotaTracker?", "lib/quota_store.py", "quota_store.py"),
    _ask("ask_which_file_constant",
         {"pkg/__init__.py": "",
          "pkg/net/__init__.py": "",
          "pkg/net/policy.py": "RETRY_BACKOFF_CAP = 95\nRETRY_JITTER = 0.3\n",
          "pkg/net/fetch.py": "from pkg.net.policy import RETRY_BACKOFF_CAP\n\n\ndef wait(n: int) -> float:\n"
                              "    return min(2 ** n, RETRY_BACKOFF_CAP)\n",
          "pkg/store.py": "PATH = '/var/lib/pkg'\n"},
         "Which file defines the constant RETRY_BACKOFF_CAP?", "pkg/net/policy.py", "net/policy.py", "policy.py"),
    _ask("ask_count_functions",
         {"tools/strings.py": _strings_module(),
          "tools/__init__.py": "",
          "tools/numbers.py": "def clamp(x: int, lo: int, hi: int) -> int:\n    return max(lo, min(hi, x))\n"},
         "How many functions are defined in tools/strings.py?", "9", "nine"),
    _ask("ask_count_todos",
         {"src/a.py": "# TODO: cache this\nx = 1\n\n\ndef f() -> int:\n    return x  # TODO: validate\n",
          "src/b.py": "def g() -> None:\n    pass  # TODO: implement\n\n\n# TODO: remove after migration\n",
          "src/c.py": "# TODO: rename module\n# TODO: add tests\nVALUE = 3\n",
          "src/d.py": "# nothing left to do here\nDONE = True\n",
          "NOTES.md": "TODO list for the release (not code)\n"},
         "How many TODO comments are there in the .py files under src/?", "6", "six"),
    _ask("ask_count_csv_rows",
         {"data/orders.csv": _orders_csv(),
          "data/README.md": "orders.csv: one order per line after the header.\n"},
         "How many orders (data rows, not counting the header line) are in data/orders.csv?", "23",
         "twenty-three", "twenty three"),
]
