"""A plain ``axon run hi`` (no tool called, nothing attached, default settings) does not import the
machinery only a tool call, a confined command, a snapshot, a compaction or a picture would use: the
built-in tools' handlers (bash's processes' output capture and jobs, the file tools' reading, writing
and matching, the searches' ripgrep and walk, tool_search's ranking), output governance and input
validation, the sandbox's command line, the shadow repository, the compaction fallback and imaging.
The real ``axon`` runs with ``-X importtime``; its stderr lists every module imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.fakeserver import text_reply

DEFERRED = (
    "axon_cli.tools.builtin.shell.capture", "axon_cli.tools.builtin.shell.spill_writer",
    "axon_cli.tools.builtin.shell.pump", "axon_cli.tools.builtin.shell.jobs",
    "axon_cli.tools.builtin.shell.hints", "axon_cli.tools.builtin.shell.notes",
    "axon_cli.tools.builtin.files.buffers", "axon_cli.tools.builtin.files.fileio",
    "axon_cli.tools.builtin.files.matching", "axon_cli.tools.builtin.files.reading",
    "axon_cli.tools.builtin.search.ripgrep", "axon_cli.tools.builtin.search.walk",
    "axon_cli.tools.builtin.search.notes", "axon_cli.tools.builtin.tool_search.ranking",
    "axon_cli.tools.governance", "axon_cli.tools.validation",
    "axon_cli.sandbox.bwrap", "axon_cli.sandbox.hidden", "axon_cli.sandbox.repos", "axon_cli.sandbox.scan",
    "axon_cli.sandbox.sockets",
    "axon_cli.snapshots.shadow", "axon_cli.snapshots.modes", "axon_cli.snapshots.coverage",
    "axon_cli.session.compaction_fallback", "axon_cli.imaging",
)


def imported_modules(stderr: str) -> set[str]:
    """The module names of ``-X importtime`` lines ("import time: self | cumulative | name")."""
    return {line.split("|")[-1].strip() for line in stderr.splitlines()
            if line.startswith("import time:") and line.count("|") == 2}


def test_run_hi_does_not_load_tool_machinery(server, project: Path, axon_env: dict[str, str]) -> None:
    subprocess.run(["git", "init", "-q", str(project)], check=True, capture_output=True, timeout=60)
    server.add(text_reply("hello"))
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "axon_cli", "run", "hi"], cwd=project,
                          env=axon_env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout == "hello\n"
    modules = imported_modules(proc.stderr)
    # the listing is read: the tools' specs, the sandbox's status and the session's snapshots are there
    assert {"axon_cli.tools.builtin.shell.tool", "axon_cli.tools.builtin.files.tool", "axon_cli.sandbox.probe",
            "axon_cli.snapshots.store", "axon_cli.session.compaction"} <= modules
    assert sorted(m for m in DEFERRED if m in modules) == []
