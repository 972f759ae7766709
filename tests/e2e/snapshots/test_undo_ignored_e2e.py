"""Git-ignored files through the real ``axon run --mode auto`` and ``axon undo`` with the sandbox: a
program whose own deletes the analysis cannot see removes an ignored database, and undo brings it
back byte for byte; an ignored file over the size cap is not held, so deleting it asks even in auto."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakeserver import text_reply, tool_reply
from tests.sandbox.test_sandbox import needs_namespaces

PRECIOUS = b"SQLite format 3\0" + bytes(range(256)) * 4 + b"\xff\xfe rows that exist nowhere else\n"


def _decisions(stdout: str) -> list[tuple[str, str]]:
    events = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    return [(e["decision"], e["reason"]) for e in events if e["type"] == "permission_decision"]


@needs_namespaces
def test_a_script_deleting_an_ignored_database_is_undone_byte_for_byte(server, run_axon, project: Path) -> None:
    (project / ".gitignore").write_text("data/\n")
    (project / "data").mkdir()
    (project / "data" / "db.sqlite").write_bytes(PRECIOUS)
    server.add(tool_reply(("write_file", {"path": "zap.py", "content": 'import os\nos.remove("data/db.sqlite")\n'})),
               tool_reply(("bash", {"command": "python3 zap.py"})), text_reply("cleaned"))
    r = run_axon("run", "clean up", "--output-format", "stream-json", "--mode", "auto")
    assert r.code == 0, r.stderr
    assert ("allow", "sandboxed, undoable") in _decisions(r.stdout)
    assert not (project / "data" / "db.sqlite").exists()          # the script really ran and deleted it

    undone = run_axon("undo")
    assert undone.code == 0, undone.stderr
    assert (project / "data" / "db.sqlite").read_bytes() == PRECIOUS
    assert not (project / "zap.py").exists()


@needs_namespaces
def test_deleting_an_ignored_file_over_the_cap_asks_even_in_auto(server, run_axon, project: Path) -> None:
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text("snapshot_max_file_mb = 1\n")
    (project / ".gitignore").write_text("data/\n")
    (project / "data").mkdir()
    big = b"\x01" * (2 * 1024 * 1024)
    (project / "data" / "dump.bin").write_bytes(big)
    (project / "data" / "db.sqlite").write_bytes(PRECIOUS)
    server.add(tool_reply(("bash", {"command": "rm data/dump.bin"})), text_reply("ok"))
    r = run_axon("run", "clean", "--output-format", "stream-json", "--mode", "auto")
    assert r.code == 0, r.stderr
    ((decision, reason),) = _decisions(r.stdout)
    assert decision == "ask" and "over the snapshot size cap" in reason
    assert (project / "data" / "dump.bin").read_bytes() == big
    assert server.requests[1].messages[-1]["content"].startswith("Permission denied: the user did not approve")
