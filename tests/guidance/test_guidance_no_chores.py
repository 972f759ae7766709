"""No file of the answer guidance (``axon_cli/agent/guidance/`` and its ``prompts/guidance_*.md`` wording) — nor
of the loop, the model client, the protocols or any prompt — names or quotes a chore of the local-model
bench (``bench/localmodel``): guidance that knew the bench's files or values would be tuned to the
test, not to the task.

The chores are data (``chores.CHORES``: fixture files, the task); what is distinctive about them is
collected here — the files' paths and names, identifiers, long numbers, versions and quoted strings
of the tasks and fixtures — skipping names any project has (README.md, __init__.py, …)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "localmodel"
sys.path.insert(0, str(BENCH))

import chores  # noqa: E402

PACKAGES = ("agent/guidance", "agent/protocols", "agent/loop", "agent/model")     # the guidance, and what the loop is made of
GUIDED = sorted([*(p for name in PACKAGES for p in (ROOT / "axon_cli" / name).glob("*.py")),
                 *(ROOT / "axon_cli" / "kernel" / "prompts").glob("*.md")])
COMMON = {"README.md", "__init__.py", "app.py", "main.py", "cli.py", "http.py", "a.py", "b.py", "c.py", "d.py",
          "notes.txt", "NOTES.md", "NOTES.txt", "requirements.txt", "pyproject.toml", "CHANGELOG.md", ".gitignore",
          "127.0.0.1", "0.0.0.0", "3.10", "__main__", "TestCase", "ConfigParser", "NotImplementedError"}
_IDENT = re.compile(r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]{2,}\b|\b[A-Z][a-z]+[A-Z]\w+\b")   # snake_case, CamelCase
_VERSION = re.compile(r"(?<![\w.])\d+(?:\.\d+){2,3}(?!\w|\.\d)")                          # 3.18.29
_NUMBER = re.compile(r"(?<![\w.])\d{4,}(?!\w|\.\d)")                                       # 7341
_DECIMAL = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w|\.\d)")                             # any number (tasks only)
_QUOTED = re.compile(r"\"(\w[^\"\n]{2,78}\w)\"|'(\w[^'\n]{2,78}\w)'")
_FILE = re.compile(r"[\w./-]*\w\.(?:py|txt|json|toml|ini|cfg|conf|md|ya?ml|csv|log|js|ts|sh)\b")


def distinctive(text: str, task: bool) -> set[str]:
    """File names, identifiers, versions and long numbers; in a task also every number with two or more
    digits and every quoted phrase, in a fixture file only quoted values without spaces ("orchid_x")."""
    found = set(_IDENT.findall(text)) | set(_VERSION.findall(text)) | set(_NUMBER.findall(text))
    found |= set(_FILE.findall(text))
    quoted = {a or b for a, b in _QUOTED.findall(text)}
    if task:
        found |= {n for n in _DECIMAL.findall(text) if len(n) >= 2} | quoted
    else:
        found |= {q for q in quoted if " " not in q and not q.isalpha()}   # not "state", "active"
    return found


def chore_words() -> set[str]:
    words: set[str] = set()
    for chore in chores.CHORES:
        words |= distinctive(chore.task, task=True)
        for path, content in chore.files.items():
            words |= {path, Path(path).name} | distinctive(content, task=False)
    return {w for w in words if len(w) >= 4 and w not in COMMON}


WORDS = chore_words()


def test_the_chores_give_words_to_look_for() -> None:
    assert len(chores.CHORES) >= 20
    for expected in ("service/settings.ini", "old_notes.txt", "timeout_ms", "7341", "9417", "dbname.txt", "QuotaTracker",
                     "orchid_ledger_42", "5.3.3"):
        assert expected in WORDS, expected


@pytest.mark.parametrize("path", GUIDED, ids=lambda p: p.name)
def test_no_file_quotes_a_chore(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    quoted = sorted(w for w in WORDS if re.search(rf"(?<![\w.]){re.escape(w)}(?![\w])", text))
    assert not quoted, f"{path.relative_to(ROOT)} quotes the local-model bench's chores: {quoted}"


def test_the_check_finds_a_quoted_chore() -> None:
    planted = 'Asked "What is timeout_ms set to in service/settings.ini?" the model said 7341.'
    assert {"timeout_ms", "service/settings.ini", "7341"} <= {w for w in WORDS if w in planted}
