"""The system prompt and the project context (from template files in ``axon_cli/kernel/prompts/``).

Two parts, ordered for prompt caching: the system prompt holds only what is the same in every
project on this machine (who axon is, how to work, OS, shell, date, mode, deferred tools), so a
server that caches prompt prefixes (llama.cpp, vLLM, OpenAI) reuses it and the tool schemas after
it from one run to the next; the project context (project root, git branch and status, the
instruction files ``AGENTS.md`` / ``AXON.md`` from the git root down to the current directory, 32 KiB
in total at most, SessionStart hook output) goes in front of the first user message, at request
time (``agent/loop/agent.py``). Both are gathered once per session: git runs with a timeout and its
failure (not a repository, no git installed) just leaves the line out.
"""

from __future__ import annotations

import datetime
import os
import platform
from dataclasses import dataclass
from pathlib import Path

from axon_cli.kernel.gitsafe import run_git
from axon_cli.kernel.prompts import load_sections, load_template
from axon_cli.session.conversation.instructions import (
    INSTRUCTION_NAMES,
    MAX_INSTRUCTION_BYTES,
    InstructionReader,
    NestedInstructions,
    instruction_files,
    user_instruction_files,
)
from axon_cli.settings.config import Settings
from axon_cli.tools.registry import ToolRegistry

__all__ = ["build_system_prompt", "build_project_context", "PromptContext", "gather_context", "git_summary",
           "instruction_files", "instructions_block", "INSTRUCTION_NAMES", "MAX_INSTRUCTION_BYTES"]

GIT_TIMEOUT = 2.0
MAX_STATUS_LINES = 8


def git_summary(cwd: Path) -> str:
    """`` Git branch main; 3 changed files: M a.py, ?? b.txt, …`` or "" when not a git repository.
    git runs hardened (``gitsafe``): the repository's config runs no command, submodules are not
    entered."""
    status = run_git(["status", "--porcelain", "--untracked-files=normal", "--ignore-submodules=all"], cwd,
                     timeout=GIT_TIMEOUT)
    if status is None:
        return ""
    branch = (run_git(["symbolic-ref", "--short", "-q", "HEAD"], cwd, timeout=GIT_TIMEOUT, drivers=())
              or run_git(["rev-parse", "--short", "HEAD"], cwd, timeout=GIT_TIMEOUT, drivers=()))
    changed = [line.strip() for line in status.splitlines() if line.strip() and not _own_state(line)]
    text = f" Git branch {(branch or '').strip() or '(detached)'}"
    if not changed:
        return text + "; working tree clean."
    shown = ", ".join(changed[:MAX_STATUS_LINES])
    more = f", … and {len(changed) - MAX_STATUS_LINES} more" if len(changed) > MAX_STATUS_LINES else ""
    return f"{text}; {len(changed)} changed file{'s' if len(changed) != 1 else ''}: {shown}{more}."


def _own_state(status_line: str) -> bool:
    """A status line about axon's own state directory (``.axon/``): noise to the model, which took
    it for a project directory to search."""
    path = status_line[3:].split(" -> ")[-1].strip('"')
    return path.startswith(".axon/") or path == ".axon" or "/.axon/" in path


def instructions_block(project_root: Path, cwd: Path | None = None, limit: int = MAX_INSTRUCTION_BYTES,
                       reader: InstructionReader | None = None) -> str:
    """The instruction files' text, each under its path, each text once, capped at ``limit`` bytes
    in total (``instructions.py``)."""
    reader = reader or InstructionReader(project_root, limit)
    paths = [*user_instruction_files(), *instruction_files(project_root, cwd)]
    loaded = [item for path in paths for item in reader.read(path)]
    parts = [f"### {item.shown}\n{item.text}" for item in loaded if item.text]
    if not parts:
        return ""
    truncated = [item.shown for item in loaded if item.truncated]
    note = ""
    if truncated:
        note = (f"\n\n[instructions truncated at {limit // 1024} KiB in total: {', '.join(truncated)} "
                "not fully included; read the file if you need the rest]")
    return load_template("instructions.md").format(files="\n\n".join(parts)).rstrip() + note


@dataclass
class PromptContext:
    """The parts of the system prompt that are gathered once per session."""

    project_root: Path
    git_line: str
    instructions: str
    nested: NestedInstructions | None = None    # instruction files below cwd, handed over on first read


def gather_context(project_root: Path, cwd: Path | None = None) -> PromptContext:
    cwd = cwd or project_root
    reader = InstructionReader(project_root)
    block = instructions_block(project_root, cwd, reader=reader)
    return PromptContext(project_root, git_summary(cwd), block, NestedInstructions(project_root, cwd, reader))


def build_system_prompt(settings: Settings, registry: ToolRegistry, mode: str | None = None,
                        main: bool = True) -> str:
    """The system prompt: who axon is, how to work, the machine, the mode, deferred tools; in plan
    mode (``main``: the session's own agent, not a sub-agent) how to plan instead of changing."""
    # every deferred tool, activated or not: the prompt is the head of every request, and a server's
    # prefix cache holds only while it stays the same (an active one is simply callable)
    deferred = [spec for spec in registry.all() if spec.deferred and spec.listed]
    deferred_block = ""
    if deferred:
        lines = "\n".join(f"- {s.name}: {s.one_line()}" for s in deferred)
        deferred_block = ("\n\nMore tools exist but are loaded on demand; call tool_search with keywords to "
                          f"activate them:\n{lines}")
    template = "system_compact.md" if settings.prompt_profile == "compact" else "system.md"
    mode = mode or settings.mode
    text = load_template(template).format(
        os_name=platform.system(), shell=os.environ.get("SHELL", "/bin/sh"),
        date=datetime.date.today().isoformat(), mode=mode, deferred_block=deferred_block,
    ).rstrip() + "\n"
    if mode == "plan" and main:
        text += "\n" + load_sections("plan_mode.md")["system"] + "\n"
    return text


def build_project_context(project_root: Path, gathered: PromptContext | None = None, extra: str = "") -> str:
    """The project context put in front of the first user message: root, git, instructions, ``extra``."""
    gathered = gathered or gather_context(project_root)
    parts = [load_template("project_context.md").format(project_root=project_root,
                                                         git_line=gathered.git_line).strip()]
    parts += [block.strip() for block in (gathered.instructions, extra) if block.strip()]
    return "<context>\n" + "\n\n".join(parts) + "\n</context>"
