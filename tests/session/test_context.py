"""The system prompt (environment, mode, deferred tools) and the project context (root, git summary,
AGENTS.md / AXON.md files) in front of the first user message, so the system prompt is a cacheable prefix."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from axon_cli.kernel.turn import ATTACHED
from axon_cli.session.conversation.context import (
    build_project_context,
    build_system_prompt,
    gather_context,
    git_summary,
    instructions_block,
)
from axon_cli.settings.config import Settings
from axon_cli.tools.registry import ToolRegistry
from tests.fakeserver import text_reply, tool_reply


def test_agents_md_from_two_levels_in_order(tmp_path):
    root = tmp_path / "repo"
    sub = root / "pkg" / "inner"
    sub.mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "AGENTS.md").write_text("ROOT RULE: use tabs\n")
    (root / "pkg" / "AXON.md").write_text("PKG RULE: no globals\n")
    (sub / "AGENTS.md").write_text("INNER RULE: keep tests fast\n")
    (tmp_path / "AGENTS.md").write_text("OUTSIDE THE REPO\n")
    prompt = build_project_context(root, gather_context(root, sub))
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
    prompt = build_system_prompt(Settings(mode="accept-edits"), registry)
    assert "Permission mode: accept-edits." in prompt
    for spec in registry.deferred():       # listed, except those another tool activates (bash_output)
        assert (f"- {spec.name}:" in prompt) == spec.listed, spec.name
    assert not all(spec.listed for spec in registry.deferred())
    assert "{" not in prompt.split("Environment:")[1].split("\n")[0]
    context = build_project_context(tmp_path, gather_context(tmp_path), "HOOK SAID")
    assert f"The project is at {tmp_path};" in context and context.endswith("HOOK SAID\n</context>")
    assert "Git branch" not in context        # an empty .git directory is not a repository: no line, no error


def test_plan_mode_tells_the_main_agent_to_end_with_a_plan_not_a_sub_agent():
    registry = ToolRegistry.with_builtins()
    plan = build_system_prompt(Settings(mode="plan"), registry)
    assert "Permission mode: plan." in plan and "You are in plan mode" in plan and "numbered steps" in plan
    assert "plan mode" not in build_system_prompt(Settings(mode="default"), registry)
    assert "You are in plan mode" not in build_system_prompt(Settings(mode="plan"), registry, main=False)
    assert "You are in plan mode" in build_system_prompt(Settings(), registry, "plan")   # /plan: the mode now


def test_the_system_prompt_is_the_same_in_every_project(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    for folder in (one, two):
        folder.mkdir()
        (folder / "AGENTS.md").write_text(f"rules of {folder.name}\n")
    registry = ToolRegistry.with_builtins()
    assert build_system_prompt(Settings(), registry) == build_system_prompt(Settings(), registry)
    assert str(tmp_path) not in build_system_prompt(Settings(), registry)
    assert "rules of one" in build_project_context(one) and "rules of two" not in build_project_context(one)


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


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_status_leaves_out_axons_own_state_dir(tmp_path):
    # a small model took "?? .axon/" for the place to search; axon's state is not the project's
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=tmp_path, check=True, capture_output=True)
    (tmp_path / ".axon").mkdir()
    (tmp_path / ".axon" / "config.toml").write_text("model = 'm'\n")
    assert git_summary(tmp_path) == " Git branch main; working tree clean."
    (tmp_path / "app.py").write_text("x = 1\n")
    assert git_summary(tmp_path) == " Git branch main; 1 changed file: ?? app.py."


def test_agents_md_from_two_levels_reaches_the_server(server, run_axon, project):
    sub = project / "services" / "api"
    sub.mkdir(parents=True)
    (project / "AGENTS.md").write_text("Top level: run `make check` before finishing.\n")
    (sub / "AGENTS.md").write_text("API level: never change the public routes.\n")
    (project / "services" / "AGENTS.md").write_text("Services level: use structured logging.\n")
    server.add(text_reply("ok"))
    r = run_axon("run", "hello", cwd=sub)
    assert r.code == 0, r.stderr
    system, first = server.requests[0].messages[0], server.requests[0].messages[1]
    assert system["role"] == "system" and "AGENTS.md" not in system["content"]
    text = first["content"]
    assert first["role"] == "user" and text.startswith("<context>\n") and text.endswith("</context>\n\nhello")
    assert text.index("Top level: run `make check`") < text.index("Services level") < text.index("API level")
    assert "### services/api/AGENTS.md" in text


def test_two_projects_share_the_cacheable_prefix_and_each_sees_its_own_context(server, run_axon, project):
    other = project.parent / "other"
    other.mkdir()
    (other / ".git").mkdir()
    (other / "AGENTS.md").write_text("Other project rule.\n")
    (project / "notes.txt").write_text("hello\n")
    server.add(tool_reply(("read_file", {"path": "notes.txt"})), text_reply("it says hello"), text_reply("ok"))
    assert run_axon("run", "what does notes.txt say?").code == 0
    assert run_axon("run", "hi", cwd=other).code == 0
    first, after_tool, elsewhere = server.requests
    # the system prompt and the tool schemas are the same bytes in both projects: a server's
    # prompt cache reuses them; only the first user message differs
    assert first.messages[0] == elsewhere.messages[0] and first.body["tools"] == elsewhere.body["tools"]
    assert str(project) in first.messages[1]["content"] and "Other project rule." not in first.messages[1]["content"]
    assert str(other) in elsewhere.messages[1]["content"] and "Other project rule." in elsewhere.messages[1]["content"]
    assert after_tool.messages[:2] == first.messages[:2]     # the same prefix on every request of the run
    assert after_tool.messages[1]["content"].split(ATTACHED)[0].endswith("\n\nwhat does notes.txt say?")
