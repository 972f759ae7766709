"""In-process: which project files a command runs (``trust/pins``), the trust items pinned to them,
and which files changed during a session (``trust/changes``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from axon_cli.app.reports.trust import describe
from axon_cli.settings.trust import FolderTrust
from axon_cli.settings.trust.changed_files import SessionChanges
from axon_cli.settings.trust.pins import argv_files, command_files
from axon_cli.settings.trust.trust_record import TrustStore
from axon_cli.settings.trust.widening import CONFIG, MCP_JSON


def write(path: Path, text: str = "x\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "proj"
    for rel in ("scripts/post-check.sh", "tools/x.py", "tools/pkg/__main__.py", "Makefile", "package.json",
                "conftest.py", "tests/unit/conftest.py", "run.sh", "lib/a.js", ".venv/pyvenv.cfg",
                ".venv/lib/conftest.py"):
        write(r / rel)
    return r


@pytest.mark.parametrize(("command", "files"), [
    ("sh scripts/post-check.sh", ["scripts/post-check.sh"]),
    ("env A=1 timeout 5 python3 -u tools/x.py --fix", ["tools/x.py"]),
    ("bash -c './run.sh > out.txt' && node lib/a.js | tee log", ["lib/a.js", "run.sh"]),
    ("./run.sh", ["run.sh"]),
    ('"$CLAUDE_PROJECT_DIR"/scripts/post-check.sh; sh ${AXON_PROJECT_DIR}/run.sh', ["run.sh", "scripts/post-check.sh"]),
    ("python -m tools.pkg", ["tools/pkg/__main__.py"]),
    ("make lint", ["Makefile"]),
    ("npm test", ["package.json"]),
    ("uv run pytest -q", ["conftest.py", "tests/unit/conftest.py"]),     # not the virtualenv's
    ("sh scripts/not-yet.sh", ["scripts/not-yet.sh"]),                     # pinned as absent
    ("black tools/x.py; cat > seen.json; ruff check .", []),               # data, not code
    ("sh ../elsewhere.sh; /usr/bin/python3 /etc/x.py", []),                # outside the project
])
def test_the_files_a_command_runs(root, command, files):
    assert command_files(command, root) == files


def test_an_mcp_servers_argv_and_its_shell_string(root):
    assert argv_files(["/usr/bin/python3", "tools/x.py"], root) == ["tools/x.py"]
    assert argv_files(["sh", "-c", "python tools/x.py && touch PWNED"], root) == ["tools/x.py"]
    assert argv_files(["npx", "some-server"], root) == ["node_modules/.bin/some-server",
                                                        "node_modules/some-server/package.json", "package.json"]


def test_a_hook_and_a_server_are_pinned_to_their_scripts_and_a_change_says_which(root, tmp_path):
    write(root / CONFIG, '[[hooks.PostToolUse]]\ncommand = "sh scripts/post-check.sh"\n')
    write(root / MCP_JSON, json.dumps({"mcpServers": {"s": {"command": "python3", "args": ["tools/x.py"]}}}))
    trust = FolderTrust(root, store=TrustStore(tmp_path / "trust.json"))
    found = trust.assess()
    shows = sorted(p.item.shows for p in found.pending)
    assert shows[0].endswith("; pinned to the content of tools/x.py")
    assert shows[1].endswith("runs: sh scripts/post-check.sh; pinned to the content of scripts/post-check.sh")
    trust.approve(found)
    record = json.loads((tmp_path / "trust.json").read_text())
    [entries] = [f["items"] for f in record["folders"].values()]
    assert all(e["pins"] for e in entries.values())

    write(root / "scripts" / "post-check.sh", "touch /tmp/pwned\n")      # a `git pull`
    again = FolderTrust(root, store=TrustStore(tmp_path / "trust.json"))
    [pending] = again.assess().pending
    assert pending.status == "changed" and pending.files == ("scripts/post-check.sh",)
    assert describe(pending).endswith("(changed: the content of scripts/post-check.sh is not what you trusted)")
    assert again.in_force(CONFIG, {"hooks": {"PostToolUse": [{"command": "sh scripts/post-check.sh"}]}}) == {}
    assert again.in_force(MCP_JSON, json.loads((root / MCP_JSON).read_text()))["mcpServers"].keys() == {"s"}


def started_after(*dirs: Path) -> SessionChanges:
    """A session that starts once the clock has passed every file under ``dirs`` (file times are coarse)."""
    newest = max(p.lstat().st_ctime_ns for d in dirs for p in [d, *d.rglob("*")])
    while True:
        changes = SessionChanges()
        if changes.started_ns > newest:
            return changes


def test_changes_during_the_session(root, tmp_path):
    script, other, linked = root / "scripts" / "post-check.sh", root / "tools" / "x.py", root / "run.sh"
    outside = write(tmp_path / "old.sh", "old code\n")
    old_dir_script = write(tmp_path / "old-dir" / "s.sh")
    changes = started_after(tmp_path)
    changes.remember([script])
    assert changes.changed([script, other, linked, root / "new.sh"]) == []

    write(script, "rewritten\n")
    write(root / "new.sh")
    os.utime(root / "new.sh", (0, 0))                 # an old mtime does not hide a new file
    linked.unlink()
    linked.symlink_to(outside)                         # a link created now to a file from before
    assert changes.changed([script, other, linked, root / "new.sh"]) == [script, linked, root / "new.sh"]
    (root / "via").symlink_to(old_dir_script.parent)   # a directory linked into place: its old file is new here
    assert changes.changed([root / "via" / "s.sh", old_dir_script]) == [root / "via" / "s.sh"]

    changes.accept([script])                           # approved: the new content is the start now
    assert changes.changed([script]) == []
    write(script, "x\n")
    assert changes.changed([script]) == [script]


def test_a_file_seen_untouched_is_remembered_then_compared(root):
    changes = started_after(root)
    target = root / "tools" / "x.py"
    assert changes.changed([target]) == []             # first sight: untouched since the start
    write(target, "changed\n")
    assert changes.changed([target]) == [target]
