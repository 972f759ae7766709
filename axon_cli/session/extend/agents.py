"""Sub-agent definitions: ``agents/NAME.md`` in the user config dir, ``~/.claude/agents/``, and the
project's ``.claude/agents/`` and ``.axon/agents/`` (a later folder replaces an earlier agent of the
same name: the project's beat the user's, axon's folder beats Claude Code's).

Front matter: ``name`` (default: the file's name), ``description`` (what the parent model reads to
choose it), ``tools`` (tool names, axon's or Claude Code's — ``Read, Grep, Glob, Bash`` —
``claude_rules.py`` maps them; a name axon has no tool for is left out and said when the agent
starts; default: the read-only ``read_file``, ``list_files``, ``search_files``, or for a file in a
``.claude`` folder every tool, as in Claude Code), ``model`` (``inherit`` and the aliases
``sonnet``/``opus``/``haiku`` keep the session's, since axon talks to any endpoint; a model id is
used as written) and ``max_turns`` (default 25). Other keys (``color``, …) are ignored. The body is
the sub-agent's role, added to its system prompt. A definition grants nothing by itself — every
call its agent makes passes the session's permission policy and approver — so definitions load in
any folder, like ``AGENTS.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from axon_cli.session.extend.sources import ExtensionFile, extension_files

__all__ = ["AgentDefinition", "LoadedAgents", "load_agents", "DEFAULT_TOOLS", "DEFAULT_MAX_TURNS",
           "GENERAL", "ALL_TOOLS"]

DEFAULT_TOOLS = ("read_file", "list_files", "search_files")
ALL_TOOLS = ("*",)                   # every tool of the session (but ``task``): Claude Code's default
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


def _tools(fields: dict[str, object], claude: bool) -> tuple[str, ...]:
    if "tools" not in fields:
        return ALL_TOOLS if claude else DEFAULT_TOOLS
    from axon_cli.session.extend.claude_rules import entries_of, tool_of

    names = (tool_of(entry) or entry for entry in entries_of(fields["tools"]))
    return tuple(dict.fromkeys(names))       # an unknown name stays: the sub-agent says it is missing


def _parse(file: ExtensionFile) -> AgentDefinition:
    from axon_cli.kernel.prompts.frontmatter import FrontMatterError, split_front_matter
    from axon_cli.session.extend.claude_rules import session_model

    fields, body = split_front_matter(file.data.decode("utf-8", "replace"))
    turns = fields.get("max_turns", DEFAULT_MAX_TURNS)
    if not isinstance(turns, int) or isinstance(turns, bool) or not 1 <= turns <= 500:
        raise FrontMatterError(f"max_turns must be a whole number from 1 to 500 (got {turns!r})")
    name = str(fields.get("name") or file.stem).strip()
    if not _NAME.fullmatch(name):
        raise FrontMatterError(f"name {name!r} is not an agent name")
    description = str(fields.get("description") or "").strip() or f"the {name} agent"
    return AgentDefinition(name, description, body.strip(), _tools(fields, file.claude),
                           session_model(fields.get("model")), turns, file.shown)


def load_agents(project_root: Path) -> LoadedAgents:
    files, problems = extension_files(project_root, "agents", ".md", claude=True)
    out = LoadedAgents({GENERAL.name: GENERAL}, problems)
    if not files:
        return out
    # loaded when an agent file exists
    from axon_cli.kernel.prompts.frontmatter import FrontMatterError

    for file in files:
        if not _NAME.fullmatch(file.stem):
            out.problems.append(f"{file.shown}: {file.stem!r} is not an agent name; skipped")
            continue
        try:
            definition = _parse(file)
        except FrontMatterError as e:
            out.problems.append(f"{file.shown}: {e}; skipped")
            continue
        out.agents[definition.name] = definition
    return out
