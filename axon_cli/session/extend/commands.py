"""Custom commands: Markdown prompt templates run as ``/NAME args`` (or ``axon run --command NAME``).

Where (lowest precedence first; a later file of the same name replaces an earlier one):
``~/.claude/commands/``, the user config dir's ``commands/``, the project's ``.claude/commands/``,
its ``.axon/commands/``. So a project command beats a user one (as in Claude Code) and axon's own
folder beats Claude Code's. A file in a subfolder (``commands/frontend/component.md``) is
``/component`` with "(project:frontend)" after its description, as Claude Code shows it, and
always ``/frontend:component`` too; when several subfolders have one of the same name, the bare
name is ambiguous and only the namespaced ones run.

Front matter (Claude Code's keys): ``description`` (``/help``), ``argument-hint`` (``/help`` and
completion), ``model`` (that turn's model; ``inherit`` and the aliases ``sonnet``/``opus``/``haiku``
keep the session's), ``allowed-tools`` (rules allowed without asking during that turn, in Claude
Code's syntax or axon's — ``claude_rules.py``; they never beat a deny rule) and
``disable-model-invocation`` (accepted; axon's model never starts a command). ``$ARGUMENTS`` and
``$1`` … ``$9`` take the arguments (a template with neither gets them appended), ``@path`` attaches
a project file (capped, masked, never a sensitive one), and a ``!`cmd` `` span runs ``cmd`` before
the prompt is sent (``command_shell.py``) — only in a command whose ``allowed-tools`` name ``Bash``,
as Claude Code requires.

A project command is loaded in any folder while it is only a template; one with ``allowed-tools``
or a ``!`` span widens what runs, so it loads only when the folder is trusted.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from axon_cli.kernel.turn import UserTurn
from axon_cli.policy.rules import parse_rule
from axon_cli.session.conversation.attach import attach_mentions
from axon_cli.session.extend.sources import ExtensionFile, extension_files, in_force
from axon_cli.settings.trust import TrustView

__all__ = ["CustomCommand", "LoadedCommands", "load_commands", "expand_command", "substitute", "find_command",
           "ShellRunner"]

KNOWN_KEYS = {"description", "argument_hint", "model", "allowed_tools", "disable_model_invocation"}
_NAME = re.compile(r"[A-Za-z0-9][\w.-]*")
ShellRunner = Callable[[str], str]     # runs one ``!`` command: its output, or an AxonError saying why not


@dataclass(frozen=True)
class CustomCommand:
    name: str                        # the file's stem: /NAME
    template: str
    source: str                      # ".claude/commands/git/commit.md" or "~/.config/axon/commands/review.md"
    description: str = ""
    argument_hint: str = ""
    model: str | None = None
    allowed_tools: tuple[str, ...] = ()   # axon rules
    namespace: tuple[str, ...] = ()  # the subfolders: ("git",) for commands/git/commit.md
    project: bool = False

    @property
    def qualified(self) -> str:
        """``git:commit`` for ``commands/git/commit.md``; the name alone at the top."""
        return ":".join((*self.namespace, self.name))

    @property
    def runs_shell(self) -> bool:
        """Whether its ``!`` spans may run: ``allowed-tools`` name the bash tool."""
        return any(rule.split("(", 1)[0] == "bash" for rule in self.allowed_tools)

    def help_line(self) -> str:
        text = self.description or self.template.strip().split("\n")[0][:80]
        where = f"({'project' if self.project else 'user'}:{'/'.join(self.namespace)})"
        return f"{text} {where}" if self.namespace else text


@dataclass
class LoadedCommands:
    commands: dict[str, CustomCommand] = field(default_factory=dict)   # every name it runs by -> command
    problems: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)
    unloaded: dict[str, str] = field(default_factory=dict)   # name -> why it runs nothing

    def listed(self) -> list[tuple[str, CustomCommand]]:
        """Each command once, by the name to show: its own if that runs it, else the namespaced one."""
        seen: dict[int, tuple[str, CustomCommand]] = {}
        for name in sorted(self.commands, key=lambda n: (":" in n, n)):
            command = self.commands[name]
            seen.setdefault(id(command), (name, command))
        return sorted(seen.values(), key=lambda pair: pair[0])


def _parse(file: ExtensionFile) -> tuple[CustomCommand, list[str], str]:
    """The command, notes about its front matter, and how it widens what runs ("": not at all; it
    does if it has ``allowed-tools`` at all or a ``!`` span, as ``settings/trust/widening.py`` counts it)."""
    # loaded when a command file exists
    from axon_cli.kernel.prompts.frontmatter import split_front_matter
    from axon_cli.kernel.prompts.shell_lines import SHELL_SPAN
    from axon_cli.session.extend.claude_rules import entries_of, rule_of, session_model

    fields, body = split_front_matter(file.data.decode("utf-8", "replace"))
    notes = [f"{file.shown}: unknown front matter key {key!r} ignored" for key in fields if key not in KNOWN_KEYS]
    rules, dropped = [], []
    for entry in entries_of(fields.get("allowed_tools")):
        rule = rule_of(entry)
        if rule is None:
            dropped.append(entry)
            continue
        parse_rule(rule, "allow", file.shown)       # a bad rule is a ConfigError naming it
        rules.append(rule)
    if dropped:
        notes.append(f"{file.shown}: allowed-tools {', '.join(dropped)}: no such tool in axon, nothing granted")
    command = CustomCommand(file.stem, body.strip(), file.shown, str(fields.get("description") or "").strip(),
                            str(fields.get("argument_hint") or "").strip(), session_model(fields.get("model")),
                            tuple(dict.fromkeys(rules)), file.namespace, file.project)
    widens = ("grants tools" if "allowed_tools" in fields
              else "runs commands" if SHELL_SPAN.search(body) is not None else "")
    return command, notes, widens


def load_commands(project_root: Path, trust: TrustView) -> LoadedCommands:
    files, problems = extension_files(project_root, "commands", ".md", claude=True, nested=True)
    out = LoadedCommands(problems=problems)
    if not files:
        return out
    from axon_cli.kernel.errors import ConfigError
    from axon_cli.kernel.prompts.frontmatter import FrontMatterError

    by_qualified: dict[str, CustomCommand] = {}
    for file in files:
        if not all(_NAME.fullmatch(part) for part in (*file.namespace, file.stem)):
            out.problems.append(f"{file.shown}: {file.stem!r} is not a command name; skipped")
            continue
        qualified = ":".join((*file.namespace, file.stem))
        try:
            command, notes, widens = _parse(file)
        except (FrontMatterError, ConfigError) as e:
            out.problems.append(f"{file.shown}: {e}; skipped")
            out.unloaded.setdefault(qualified, f"{file.shown} is broken: {e}")
            continue
        out.problems.extend(notes)
        if widens and not in_force(file, "command", trust):
            out.waiting.append(file.shown)
            out.unloaded.setdefault(qualified, f"{file.shown} {widens} and is not loaded until this folder "
                                               "is trusted (`axon trust`)")
            continue
        by_qualified[qualified] = command       # the later folder replaces the earlier one
    _by_name(out, by_qualified)
    return out


def _by_name(out: LoadedCommands, by_qualified: dict[str, CustomCommand]) -> None:
    """Each command under its namespaced name, and under its bare name where that is one command:
    the project's over the user's, the top folder's over a subfolder's."""
    out.commands.update(by_qualified)
    groups: dict[str, list[CustomCommand]] = {}
    for command in by_qualified.values():
        groups.setdefault(command.name, []).append(command)
    for name, group in groups.items():
        first = [c for c in group if c.project] or group
        top = [c for c in first if not c.namespace]
        if top or len(first) == 1:
            out.commands[name] = (top or first)[0]
        else:
            names = ", ".join(f"/{c.qualified} ({c.source})" for c in first)
            out.unloaded.setdefault(name, f"several commands have this name; run one of {names}")
    for name in out.commands:
        out.unloaded.pop(name, None)


def _positional(arguments: str) -> list[str]:
    try:
        return shlex.split(arguments)
    except ValueError:
        return arguments.split()


def _uses_arguments(template: str) -> bool:
    return "$ARGUMENTS" in template or re.search(r"\$[1-9]", template) is not None


def _fill(text: str, arguments: str, words: list[str]) -> str:
    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        if key == "ARGUMENTS":
            return arguments
        return words[int(key) - 1] if int(key) <= len(words) else ""

    return re.sub(r"\$(ARGUMENTS|[1-9])", value, text)


def _appended(text: str, template: str, arguments: str) -> str:
    return f"{text.rstrip()}\n\nArguments: {arguments}" if arguments and not _uses_arguments(template) else text


def substitute(template: str, arguments: str) -> str:
    """``$ARGUMENTS`` and ``$1`` … ``$9`` replaced; the arguments appended if the template uses neither."""
    arguments = arguments.strip()
    return _appended(_fill(template, arguments, _positional(arguments)), template, arguments)


def _refuse(command: str) -> str:
    from axon_cli.kernel.errors import ConfigError

    raise ConfigError(f"!`{command}` cannot run here")


def expand_command(command: CustomCommand, arguments: str, project_root: Path,
                   run_shell: ShellRunner | None = None) -> tuple[UserTurn, list[str]]:
    """The turn the command sends (its template's words, each ``!`` span replaced by its command's
    output, and the attached files), and one line per attached (or refused) ``@path``. The spans are
    found in the template itself, never in the arguments or in an output, and an ``@path`` only in
    the template and arguments. A span that may not run is an error: nothing is sent."""
    from axon_cli.kernel.errors import ConfigError
    from axon_cli.kernel.prompts.shell_lines import SHELL_SPAN

    template, arguments = command.template, arguments.strip()
    words = _positional(arguments)
    spans = list(SHELL_SPAN.finditer(template))
    if spans and not command.runs_shell:
        raise ConfigError(f"command /{command.qualified} ({command.source}): its !`…` lines run only when its "
                          "allowed-tools name Bash (as in Claude Code); nothing was sent")
    run = run_shell or _refuse
    sent, words_only, at = [], [], 0
    for span in spans:
        before = _fill(template[at:span.start()], arguments, words)
        sent += [before, run(_fill(span.group(1), arguments, words).strip())]
        words_only += [before, " "]
        at = span.end()
    sent.append(_fill(template[at:], arguments, words))
    words_only.append(sent[-1])
    turn, notes = attach_mentions(_appended("".join(words_only), template, arguments), project_root,
                                  skip_sensitive=True)
    return UserTurn(_appended("".join(sent), template, arguments), turn.attachments, turn.images), notes


def find_command(commands: LoadedCommands, name: str) -> CustomCommand:
    """The command called ``name``, or an error saying why there is none."""
    from axon_cli.kernel.errors import ConfigError, UsageError

    name = name.lstrip("/")
    found = commands.commands.get(name)
    if found is not None:
        return found
    if name in commands.unloaded:
        raise ConfigError(f"command {name!r}: {commands.unloaded[name]}")
    known = ", ".join(n for n, _ in commands.listed()) or "none (add .axon/commands/NAME.md)"
    raise UsageError(f"unknown command {name!r}; the custom commands are: {known}")
