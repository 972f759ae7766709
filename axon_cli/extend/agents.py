"""Sub-agent definitions: ``agents/NAME.md`` (user config dir) and ``.axon/agents/NAME.md`` (project).

Front matter: ``description`` (what the parent model reads to choose it), ``tools`` (tool names;
default: the read-only ``read_file``, ``list_files``, ``search_files``), ``model`` (default: the
session's), ``max_turns`` (default 25). The body is the sub-agent's role, added to its system
prompt. A definition grants nothing by itself — every call its agent makes passes the session's
permission policy and approver — so definitions load in any folder, like ``AGENTS.md``. A project
definition replaces a user one of the same name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from axon_cli.extend.sources import extension_files
from axon_cli.prompts.frontmatter import FrontMatterError, as_list, split_front_matter

__all__ = ["AgentDefinition", "LoadedAgents", "load_agents", "DEFAULT_TOOLS", "DEFAULT_MAX_TURNS",
           "GENERAL"]

DEFAULT_TOOLS = ("read_file", "list_files", "search_files")
DEFAULT_MAX_TURNS = 25
_NAME = re.compile(r"[A-Za-z0-9][\w.-]*")


@dataclass(frozen=True)
class AgentDefinition:
    name: str
    description: str
    role: str = ""                   # the body: added to the sub-agent's system prompt
    tools: tuple[str, ...] = DEFAULT_TOOLS
    model: str | None = None
    max_turns: int = DEFAULT_MAX_TURNS
    source: str = "built-in"


GENERAL = AgentDefinition("general", "a general-purpose researcher with read-only tools (the default)")


@dataclass
class LoadedAgents:
    agents: dict[str, AgentDefinition] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _parse(name: str, source: str, data: bytes) -> AgentDefinition:
    fields, body = split_front_matter(data.decode("utf-8", "replace"))
    turns = fields.get("max_turns", DEFAULT_MAX_TURNS)
    if not isinstance(turns, int) or isinstance(turns, bool) or not 1 <= turns <= 500:
        raise FrontMatterError(f"max_turns must be a whole number from 1 to 500 (got {turns!r})")
    tools = tuple(as_list(fields["tools"])) if "tools" in fields else DEFAULT_TOOLS
    model = fields.get("model")
    return AgentDefinition(name, str(fields.get("description") or "").strip() or f"the {name} agent",
                           body.strip(), tools, str(model) if model else None, turns, source)


def load_agents(project_root: Path) -> LoadedAgents:
    files, problems = extension_files(project_root, "agents", ".md")
    out = LoadedAgents({GENERAL.name: GENERAL}, problems)
    for file in files:
        if not _NAME.fullmatch(file.stem):
            out.problems.append(f"{file.shown}: {file.stem!r} is not an agent name; skipped")
            continue
        try:
            out.agents[file.stem] = _parse(file.stem, file.shown, file.data)
        except FrontMatterError as e:
            out.problems.append(f"{file.shown}: {e}; skipped")
    return out
