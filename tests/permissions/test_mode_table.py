"""The mode table in docs/permissions.md is the policy's own answer: rendered from ``decide``, compared.

Each row is a kind of call with an example; each column a mode of the ladder. The project is real
(files on disk), the sandbox and a snapshot are on, ``data/`` is git-ignored (and snapshotted), ``node_modules/`` is not snapshotted. When the doc and the
policy disagree the test fails and prints the table the policy gives.
"""

from __future__ import annotations

from pathlib import Path

from axon_cli.policy.modes import MODES
from tests.permissions.test_mode_ladder import containment, make_project, verdicts

DOC = Path(__file__).resolve().parents[2] / "docs" / "permissions.md"
START, END = "<!-- mode-table: rendered by tests/permissions/test_mode_table.py -->", "<!-- /mode-table -->"
WORD = {"A": "runs", "Q": "asks", "D": "denied"}
# kind of call, tool, category, input, read-only (as the tool's spec says)
KINDS: list[tuple[str, str, str, dict[str, str], bool]] = [
    ("read a file", "read_file", "read", {"path": "a.txt"}, True),
    ("read-only command", "bash", "shell", {"command": "git status"}, False),
    ("update the todo list (the plan's)", "todo_write", "other", {"todos": "[…]"}, True),
    ("edit an existing file", "edit_file", "edit", {"path": "a.txt"}, False),
    ("edit in place by a command", "bash", "shell", {"command": "sed -i s/x/y/ a.txt"}, False),
    ("create a new file", "write_file", "edit", {"path": "new.txt"}, False),
    ("create a new file by a command", "bash", "shell", {"command": "touch new.txt"}, False),
    ("delete, overwrite, chmod", "bash", "shell", {"command": "rm a.txt"}, False),
    ("script, test or build", "bash", "shell", {"command": "python3 script.py"}, False),
    ("network", "bash", "shell", {"command": "curl https://example.com"}, False),
    ("fetch a web page", "web_fetch", "other", {"url": "https://example.com"}, False),
    ("outside the project", "bash", "shell", {"command": "echo x > /tmp/out"}, False),
    ("sensitive path", "read_file", "read", {"path": ".env"}, True),
    ("git-ignored file (snapshotted)", "bash", "shell", {"command": "rm data/db.sqlite"}, False),
    ("not snapshotted (regenerable, over the cap)", "bash", "shell", {"command": "rm -rf node_modules"}, False),
]


def _example(tool: str, tool_input: dict[str, str]) -> str:
    return f"`{tool}({next(iter(tool_input.values()))})`"


def render(root: Path, home: Path) -> str:
    lines = ["| kind of call | example | " + " | ".join(f"`{m}`" for m in MODES) + " |",
             "|---|---|" + "---|" * len(MODES)]
    for kind, tool, category, tool_input, read_only in KINDS:
        got = verdicts(tool, category, tool_input, root, home, read_only, containment(root))
        lines.append(f"| {kind} | {_example(tool, tool_input)} | " + " | ".join(WORD[v] for v in got) + " |")
    return "\n".join(lines)


def test_the_documented_mode_table_is_the_policy(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    expected = render(make_project(tmp_path / "proj"), tmp_path / "home")
    text = DOC.read_text(encoding="utf-8")
    assert START in text and END in text, "docs/permissions.md lacks the mode table markers"
    shown = text.split(START, 1)[1].split(END, 1)[0].strip()
    assert shown == expected, "docs/permissions.md's mode table disagrees with the policy; the policy says:\n" + expected
