"""The system prompt: environment, git summary, mode, deferred tools, AGENTS.md / AXON.md files."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from axon_cli.config import Settings
from axon_cli.session.context import build_system_prompt, gather_context, git_summary, instructions_block
from axon_cli.tools.registry import ToolRegistry
from tests.fakeserver import text_reply


def test_agents_md_from_two_levels_in_order(tmp_path):
    root = tmp_path / "repo"
    sub = root / "pkg" / "inner"
    sub.mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "AGENTS.md").write_text("ROOT RULE: use tabs\n")
    (root / "pkg" / "AXON.md").write_text("PKG RULE: no globals\n")
    (sub / "AGENTS.md").write_text("INNER RULE: keep tests fast\n")
    (tmp_path / "AGENTS.md").write_text("OUTSIDE THE REPO\n")
    prompt = build_system_prompt(root, Settings(), ToolRegistry.with_builtins(),
                                 gathered=gather_context(root, sub))
    assert "OUTSIDE THE REPO" not in prompt
    positions = [prompt.index(rule) for rule in ("ROOT RULE", "PKG RULE", "INNER RULE")]
    assert positions == sorted(positions)
    assert "### pkg/inner/AGENTS.md" in prompt


def test_instructions_capped_at_32_kib_and_say_so(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("A" * 30_000)
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "AGENTS.md").write_text("B" * 10_000)
    block = instructions_block(tmp_path, sub)
    assert block.split("### AGENTS.md\n")[1].split("\n")[0] == "A" * 30_000
    assert block.split("### sub/AGENTS.md\n")[1].split("\n")[0] == "B" * (32 * 1024 - 30_000)
    assert "truncated at 32 KiB" in block and "sub/AGENTS.md" in block.splitlines()[-1]


def test_no_instructions_no_block(tmp_path):
    assert instructions_block(tmp_path) == ""


def test_prompt_has_environment_mode_and_deferred_tools(tmp_path):
    (tmp_path / ".git").mkdir()
    registry = ToolRegistry.with_builtins()
    prompt = build_system_prompt(tmp_path, Settings(mode="accept-edits"), registry, gathered=gather_context(tmp_path))
    assert f"in the project at {tmp_path}" in prompt
    assert "Permission mode: accept-edits." in prompt
    for spec in registry.deferred():
        assert f"- {spec.name}:" in prompt
    assert "Git branch" not in prompt        # an empty .git directory is not a repository: no line, no error
    assert "{" not in prompt.split("Environment:")[1].split("\n")[0]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_branch_and_bounded_status(tmp_path):
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q", "-b", "feature-x")
    for i in range(12):
        (tmp_path / f"f{i:02d}.txt").write_text("x")
    line = git_summary(tmp_path)
    assert line.startswith(" Git branch feature-x; 12 changed files: ?? f00.txt")
    assert "f07.txt" in line and "f08.txt" not in line and "… and 4 more" in line


def test_agents_md_from_two_levels_reaches_the_server(server, run_axon, project):
    sub = project / "services" / "api"
    sub.mkdir(parents=True)
    (project / "AGENTS.md").write_text("Top level: run `make check` before finishing.\n")
    (sub / "AGENTS.md").write_text("API level: never change the public routes.\n")
    (project / "services" / "AGENTS.md").write_text("Services level: use structured logging.\n")
    server.add(text_reply("ok"))
    r = run_axon("run", "hello", cwd=sub)
    assert r.code == 0, r.stderr
    system = server.requests[0].messages[0]["content"]
    assert system.index("Top level: run `make check`") < system.index("Services level") < system.index("API level")
    assert "### services/api/AGENTS.md" in system
