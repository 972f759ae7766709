"""The system prompt (from a template file) and the project's instruction files."""

from __future__ import annotations

import datetime
import os
import platform
from importlib import resources
from pathlib import Path

from axon_cli.config import Settings
from axon_cli.tools.registry import ToolRegistry

__all__ = ["build_system_prompt", "load_template"]


def load_template(name: str) -> str:
    return (resources.files("axon_cli") / "prompts" / name).read_text(encoding="utf-8")


def build_system_prompt(project_root: Path, settings: Settings, registry: ToolRegistry) -> str:
    deferred = registry.deferred()
    deferred_block = ""
    if deferred:
        lines = "\n".join(f"- {s.name}: {s.one_line()}" for s in deferred)
        deferred_block = ("\n\nMore tools exist but are not loaded; call tool_search with keywords to "
                          f"activate them:\n{lines}")
    return load_template("system.md").format(
        project_root=project_root, os_name=platform.system(), shell=os.environ.get("SHELL", "/bin/sh"),
        date=datetime.date.today().isoformat(), git_line="", mode=settings.mode,
        deferred_block=deferred_block, instructions_block="",
    )
