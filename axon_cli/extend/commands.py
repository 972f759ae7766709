"""Custom commands: ``commands/NAME.md`` (user config dir) and ``.axon/commands/NAME.md`` (project).

A command is a Markdown prompt template with optional front matter: ``description`` (shown by
``/help``), ``argument_hint``, ``model`` (used for that turn) and ``allowed_tools`` (permission
rules allowed without asking during that turn; they never beat a deny rule). ``$ARGUMENTS`` is
replaced by everything after the name, ``$1`` … ``$9`` by the single arguments (shell-style
quoting); a template with neither gets the arguments appended. ``@path`` attaches a project file
(capped, masked, never a sensitive one).

A project command is loaded in any folder while it is only a template; one with
``allowed_tools`` widens what runs unasked, so it loads only when the folder is trusted. A
project command replaces a user command of the same name: it was written for this codebase.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from axon_cli.extend.sources import extension_files, in_force
from axon_cli.permissions.rules import parse_rule
from axon_cli.prompts.frontmatter import FrontMatterError, as_list, split_front_matter
from axon_cli.session.attach import attach_mentions
from axon_cli.trust import TrustView
from axon_cli.turn import UserTurn

__all__ = ["CustomCommand", "LoadedCommands", "load_commands", "expand_command", "substitute", "find_command"]

KNOWN_KEYS = {"description", "argument_hint", "model", "allowed_tools"}
_NAME = re.compile(r"[A-Za-z0-9][\w.-]*")


@dataclass(frozen=True)
class CustomCommand:
    name: str
    template: str
    source: str                      # ".axon/commands/review.md" or "~/.config/axon/commands/review.md"
    description: str = ""
    argument_hint: str = ""
    model: str | None = None
    allowed_tools: tuple[str, ...] = ()

    def help_line(self) -> str:
        return self.description or self.template.strip().split("\n")[0][:80]


@dataclass
class LoadedCommands:
    commands: dict[str, CustomCommand] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)
    unloaded: dict[str, str] = field(default_factory=dict)   # name -> why its file is not loaded


def _parse(name: str, source: str, data: bytes) -> tuple[CustomCommand, list[str], bool]:
    """The command, notes about its front matter, and whether it grants tools (has the key at all,
    as ``trust/widening.py`` counts it)."""
    fields, body = split_front_matter(data.decode("utf-8", "replace"))
    notes = [f"{source}: unknown front matter key {key!r} ignored" for key in fields if key not in KNOWN_KEYS]
    tools = tuple(as_list(fields.get("allowed_tools")))
    for rule in tools:
        parse_rule(rule, "allow", source)       # a bad rule is a ConfigError naming it
    model = fields.get("model")
    return CustomCommand(name, body.strip(), source, str(fields.get("description") or "").strip(),
                         str(fields.get("argument_hint") or "").strip(), str(model) if model else None,
                         tools), notes, "allowed_tools" in fields


def load_commands(project_root: Path, trust: TrustView) -> LoadedCommands:
    from axon_cli.errors import ConfigError

    files, problems = extension_files(project_root, "commands", ".md")
    out = LoadedCommands(problems=problems)
    for file in files:
        if not _NAME.fullmatch(file.stem):
            out.problems.append(f"{file.shown}: {file.stem!r} is not a command name; skipped")
            continue
        try:
            command, notes, grants = _parse(file.stem, file.shown, file.data)
        except (FrontMatterError, ConfigError) as e:
            out.problems.append(f"{file.shown}: {e}; skipped")
            out.unloaded.setdefault(file.stem, f"{file.shown} is broken: {e}")
            continue
        out.problems.extend(notes)
        if grants and not in_force(file, "command", trust):
            out.waiting.append(file.shown)
            out.unloaded.setdefault(file.stem, f"{file.shown} grants tools and is not loaded until this "
                                               "folder is trusted (`axon trust`)")
            continue
        out.commands[command.name] = command      # the project's come later and replace the user's
    return out


def _positional(arguments: str) -> list[str]:
    try:
        return shlex.split(arguments)
    except ValueError:
        return arguments.split()


def substitute(template: str, arguments: str) -> str:
    """``$ARGUMENTS`` and ``$1`` … ``$9`` replaced; the arguments appended if the template uses neither."""
    arguments = arguments.strip()
    words = _positional(arguments)
    used = "$ARGUMENTS" in template or re.search(r"\$[1-9]", template) is not None

    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        if key == "ARGUMENTS":
            return arguments
        return words[int(key) - 1] if int(key) <= len(words) else ""

    text = re.sub(r"\$(ARGUMENTS|[1-9])", value, template)
    if arguments and not used:
        text = f"{text.rstrip()}\n\nArguments: {arguments}"
    return text


def expand_command(command: CustomCommand, arguments: str, project_root: Path) -> tuple[UserTurn, list[str]]:
    """The turn the command sends (its template's words and attached files), and one line per
    attached (or refused) ``@path``."""
    return attach_mentions(substitute(command.template, arguments), project_root, skip_sensitive=True)


def find_command(commands: LoadedCommands, name: str) -> CustomCommand:
    """The command called ``name``, or an error saying why there is none."""
    from axon_cli.errors import ConfigError, UsageError

    name = name.lstrip("/")
    found = commands.commands.get(name)
    if found is not None:
        return found
    if name in commands.unloaded:
        raise ConfigError(f"command {name!r}: {commands.unloaded[name]}")
    known = ", ".join(sorted(commands.commands)) or "none (add .axon/commands/NAME.md)"
    raise UsageError(f"unknown command {name!r}; the custom commands are: {known}")
