"""A plain ``axon run hi`` (no tool called, no extension files, no hooks, no MCP servers, default
settings) does not import the machinery only those would use: the hooks, Python tools, skills'
tool, sub-agents, front matter, the text-call parser, MCP's config and session, the trust report
and the web permission rules. The real ``axon`` runs with ``-X importtime``; its stderr lists every
module imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.fakeserver import text_reply

DEFERRED = (
    "axon_cli.extend.hook_guard", "axon_cli.extend.hook_runner", "axon_cli.extend.hook_reply",
    "axon_cli.extend.hook_seams", "axon_cli.extend.claude_vocab", "axon_cli.extend.claude_rules",
    "axon_cli.extend.pytools", "axon_cli.extend.function_schema", "axon_cli.extend.docstrings",
    "axon_cli.extend.skill_tool", "axon_cli.extend.subagent", "axon_cli.extend.subagent_progress",
    "axon_cli.prompts.frontmatter", "axon_cli.prompts.shell_lines",
    "axon_cli.protocols.textcalls", "axon_cli.protocols.callshapes", "axon_cli.protocols.pyliteral",
    "axon_cli.protocols.callorder",
    "axon_cli.mcp.session", "axon_cli.mcp.servers", "axon_cli.mcp.names",
    "axon_cli.reports", "axon_cli.reports.trust", "axon_cli.permissions.web",
)


def imported_modules(stderr: str) -> set[str]:
    """The module names of ``-X importtime`` lines ("import time: self | cumulative | name")."""
    return {line.split("|")[-1].strip() for line in stderr.splitlines()
            if line.startswith("import time:") and line.count("|") == 2}


def test_run_hi_does_not_load_extension_machinery(server, project: Path, axon_env: dict[str, str]) -> None:
    server.add(text_reply("hello"))
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "axon_cli", "run", "hi"], cwd=project,
                          env=axon_env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout == "hello\n"
    modules = imported_modules(proc.stderr)
    assert "axon_cli.runtime" in modules and "axon_cli.extend.task_tool" in modules   # the listing is read
    assert sorted(m for m in DEFERRED if m in modules) == []
