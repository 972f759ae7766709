"""A plain ``axon run hi`` (no tool called, nothing attached, no extension files, no hooks, no MCP
servers, default settings) imports none of the machinery only those would use: the built-in tools'
handlers (bash's output capture and jobs, the file tools' reading, writing and matching, the
searches' ripgrep and walk, tool_search's ranking), output governance and input validation, the
sandbox's command line, the shadow repository, the compaction fallback, imaging; the hooks, Python
tools, the skills' tool, sub-agents, front matter, the text-call parser, MCP's config and session,
the trust report and the web permission rules; nor typer (``app/ui/run_entry.py`` reads the arguments). Start-up pays for every module it imports (the
`axon run hi` row of bench/run). The real ``axon`` runs with ``-X importtime``; its stderr lists
every module imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.fakeserver import ScriptedServer, text_reply

TOOL_MACHINERY = (
    "axon_cli.tools.builtin.bash.capture", "axon_cli.tools.builtin.bash.spill_writer",
    "axon_cli.tools.builtin.bash.pump", "axon_cli.tools.builtin.bash.jobs",
    "axon_cli.tools.builtin.bash.hints", "axon_cli.tools.builtin.bash.path_notes",
    "axon_cli.tools.builtin.files.buffers", "axon_cli.tools.builtin.files.fileio",
    "axon_cli.tools.builtin.files.matching", "axon_cli.tools.builtin.files.reading",
    "axon_cli.tools.builtin.search.ripgrep", "axon_cli.tools.builtin.search.walk",
    "axon_cli.tools.builtin.search.search_notes", "axon_cli.tools.builtin.tool_search.ranking",
    "axon_cli.tools.governance", "axon_cli.tools.validation",
    "axon_cli.machinery.sandbox.bwrap", "axon_cli.machinery.sandbox.hidden", "axon_cli.machinery.sandbox.repos", "axon_cli.machinery.sandbox.bounded_walk",
    "axon_cli.machinery.sandbox.sockets",
    "axon_cli.machinery.snapshots.shadow", "axon_cli.machinery.snapshots.permission_bits", "axon_cli.machinery.snapshots.coverage",
    "axon_cli.session.conversation.compaction_fallback", "axon_cli.machinery.media.imaging",
)
EXTENSION_MACHINERY = (
    "axon_cli.session.extend.hook_guard", "axon_cli.session.extend.hook_runner", "axon_cli.session.extend.hook_reply",
    "axon_cli.session.extend.hook_seams", "axon_cli.session.extend.claude_vocab", "axon_cli.session.extend.claude_rules",
    "axon_cli.session.extend.pytools", "axon_cli.session.extend.function_schema", "axon_cli.session.extend.docstrings",
    "axon_cli.session.extend.skill_tool", "axon_cli.session.extend.subagent", "axon_cli.session.extend.subagent_progress",
    "axon_cli.kernel.prompts.frontmatter", "axon_cli.kernel.prompts.shell_lines",
    "axon_cli.agent.protocols.textcalls", "axon_cli.agent.protocols.callshapes", "axon_cli.agent.protocols.pyliteral",
    "axon_cli.agent.protocols.callorder",
    "axon_cli.session.mcp.session_servers", "axon_cli.settings.mcp_servers", "axon_cli.policy.tool_names",
    "axon_cli.app.reports", "axon_cli.app.reports.trust", "axon_cli.policy.web",
)


def imported_modules(stderr: str) -> set[str]:
    """The module names of ``-X importtime`` lines ("import time: self | cumulative | name")."""
    return {line.split("|")[-1].strip() for line in stderr.splitlines()
            if line.startswith("import time:") and line.count("|") == 2}


def run_hi_imports(server: ScriptedServer, project: Path, env: dict[str, str]) -> set[str]:
    subprocess.run(["git", "init", "-q", str(project)], check=True, capture_output=True, timeout=60)
    server.add(text_reply("hello"))
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "axon_cli", "run", "hi"], cwd=project,
                          env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout == "hello\n"
    return imported_modules(proc.stderr)


def test_run_hi_does_not_load_tool_machinery(server, project: Path, axon_env: dict[str, str]) -> None:
    modules = run_hi_imports(server, project, axon_env)
    # the listing is read: the tools' specs, the sandbox's status and the session's snapshots are there
    assert {"axon_cli.tools.builtin.bash.bash_tool", "axon_cli.tools.builtin.files.file_tools", "axon_cli.machinery.sandbox.probe",
            "axon_cli.machinery.snapshots.store", "axon_cli.session.conversation.compaction"} <= modules
    assert sorted(m for m in TOOL_MACHINERY if m in modules) == []
    assert "typer" not in modules and "axon_cli.app.entry.cli" not in modules   # `run hi` reads its own arguments


def test_run_hi_does_not_load_extension_machinery(server, project: Path, axon_env: dict[str, str]) -> None:
    modules = run_hi_imports(server, project, axon_env)
    assert "axon_cli.session.runtime.opening" in modules and "axon_cli.session.extend.task_tool" in modules   # the listing is read
    assert sorted(m for m in EXTENSION_MACHINERY if m in modules) == []
