"""In-process: the pin analysis fails closed (``Runs``: every project file a command runs, or why axon
cannot tell), ``axon trust`` says so, and the outside gate asks about such an item every time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axon_cli.app.reports.trust import status_text
from axon_cli.kernel.events import ApprovalAnswer, ApprovalRequest
from axon_cli.machinery.sandbox.outside import HOW_TO_PIN, Launch, OutsideGate
from axon_cli.settings.trust import FolderTrust
from axon_cli.settings.trust.pins import argv_runs, command_runs
from axon_cli.settings.trust.trust_record import TrustStore
from axon_cli.settings.trust.widening import CLAUDE_SETTINGS, CONFIG


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "proj"
    for rel in ("tools/x.py", "tools/x.sh", "x.sh", "x.ts", "tools/Makefile", ".claude/hooks/guard.py"):
        (r / rel).parent.mkdir(parents=True, exist_ok=True)
        (r / rel).write_text("x\n")
    return r


@pytest.mark.parametrize("command", [            # every form issue 32 found unpinned, and their class
    "python3 -I x.py", "python3 -E x.py", "python3 -O x.py", "python3 -IB -X dev -W ignore x.py",
    "node --no-warnings x.js", "perl -w x.pl", "bash -euo pipefail x.sh", "python3 -- x.py",
])
def test_known_interpreter_flags_pin_the_script(root: Path, command: str) -> None:
    runs = command_runs(command, root)
    assert runs.known and runs.files == (command.split()[-1],), runs


@pytest.mark.parametrize(("command", "why"), [
    ("cd tools && sh x.sh", "cd"), ("pushd tools && sh x.sh", "pushd"), ("sh < x.sh", "standard input"),
    ("bash <<EOF\n./x.sh\nEOF", "standard input"), ("cat x.py | python3", "standard input"),
    ('"${CLAUDE_PROJECT_DIR:-.}"/x.sh', "variable"), ("$PWD/x.sh", "variable"), ("sh $(pwd)/x.sh", "expanded"),
    ("sh tools/*.sh", "expanded"), ("make -C tools", "-C"), ("make -f tools/Makefile", "-f"),
    ("npm --prefix tools test", "--prefix"), ("uv run --with dep python x.py", "--with"),
    ("python3 -Q x.py", "-Q"), ("node --frozen-intrinsics x.js", "--frozen-intrinsics"),
    ("perl -Itools x.pl", "-Itools"), ("python3 -c 'import x'", ""), ("python3 -c 'import json'", "inline"), ("PYTHONPATH=tools python3 x.py", "PYTHONPATH"),
    ("env -C tools sh x.sh", "env -C"), ("find . -name x.sh -exec sh {} \\;", "find"),
])
def test_what_axon_cannot_tell_is_said_with_a_reason(root: Path, command: str, why: str) -> None:
    runs = command_runs(command, root)
    assert not runs.known and why in runs.unknown, runs


def test_the_exact_project_dir_forms_and_a_runner_s_installed_package(root: Path) -> None:
    for form in ('"$CLAUDE_PROJECT_DIR"/x.sh', "${CLAUDE_PROJECT_DIR}/x.sh", "$AXON_PROJECT_DIR/x.sh",
                 'cd "$CLAUDE_PROJECT_DIR" && ./x.sh'):
        assert command_runs(form, root).files == ("x.sh",), form
    (root / "node_modules" / "tsx").mkdir(parents=True)
    assert "node_modules/tsx" in command_runs("npx tsx x.ts", root).unknown
    assert not argv_runs(["python3", "x.py"], root, env={"NODE_OPTIONS": "--require ./x.js"}).known
    assert argv_runs(["python3", "-I", "tools/x.py"], root, env={"API_TOKEN": "t"}).files == ("tools/x.py",)
    assert argv_runs(["python3", "-c", "import sys; sys.stdin.read()"], root).known      # nothing shadows sys
    assert command_runs("make -s -j4 lint", root).known and not command_runs("make -sC tools", root).known


def test_axon_trust_shows_the_pins_or_cannot_tell(root: Path, tmp_path: Path) -> None:
    (root / ".axon").mkdir()
    (root / CONFIG).write_text('[[hooks.PostToolUse]]\ncommand = "cd tools && sh x.sh"\n')
    (root / CLAUDE_SETTINGS).write_text(json.dumps({"hooks": {"PostToolUse": [{"hooks": [
        {"type": "command", "command": "python3 -I .claude/hooks/guard.py"}]}]}}))
    trust = FolderTrust(root, store=TrustStore(tmp_path / "trust.json"))
    text = status_text(trust, trust.assess())
    assert "pinned to the content of .claude/hooks/guard.py" in text
    assert "cd tools && sh x.sh; cannot tell what this runs: `cd` changes the folder" in text


class Answers:
    def __init__(self, *answers: bool) -> None:
        self.answers, self.asked = list(answers), []

    def __call__(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(request)
        return ApprovalAnswer(approved=self.answers.pop(0))


def test_cannot_tell_asks_every_time_and_headless_is_refused_with_how_to_pin(root: Path) -> None:
    notices: list[object] = []
    gate = OutsideGate(root, emit=notices.append)
    launch = Launch("hook", "PostToolUse hook `cd tools && sh x.sh`", command="cd tools && sh x.sh", cwd=root)
    approver = Answers(True, True)
    gate.approver = lambda: approver
    assert [gate.decide(launch).where for _ in range(2)] == ["outside", "outside"]
    assert len(approver.asked) == 2 and "cannot tell" in approver.asked[0].reason
    gate.approver = lambda: None                                  # axon run without --yes
    assert gate.decide(launch).where == "refused"
    gate.sandbox = "workspace-write"
    assert gate.decide(Launch("hook", "h", command="cd tools && sh x.sh", may_sandbox=True)).where == "sandbox"
    lines = [getattr(n, "message", "") for n in notices]
    assert any(HOW_TO_PIN in line and line.count("\n") == 0 for line in lines)


def test_a_pinned_file_changed_in_the_session_is_asked_about_once(root: Path) -> None:
    gate = OutsideGate(root)
    launch = Launch("hook", "h", command="python3 -I tools/x.py", cwd=root)
    gate.remember([launch])
    assert gate.decide(launch).where == "outside"
    (root / "tools" / "x.py").write_text("rewritten\n")
    approver = Answers(True)
    gate.approver = lambda: approver
    assert gate.decide(launch).where == "outside" and gate.decide(launch).where == "outside"
    assert len(approver.asked) == 1
