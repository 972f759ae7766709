"""Slash commands of the REPL: ``/help``, ``/mode``, ``/plan``, ``/model``, ``/undo``, ``/jobs``, … and a close-match hint.

After the built-in ones come the custom commands (``.axon/commands/NAME.md``, ``.claude/commands/``
and the user's; ``session/extend/commands.py``); a built-in command keeps its name if a custom one has the same.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from rich.text import Text

from axon_cli.app.ui.render import print_error, print_notice
from axon_cli.kernel.errors import AxonError
from axon_cli.policy.modes import MODES
from axon_cli.tools.spec import ToolError

if TYPE_CHECKING:
    from rich.console import Console

    from axon_cli.session.extend.commands import CustomCommand
    from axon_cli.session.runtime.opening import Runtime
    from axon_cli.settings.config import LoadedSettings

__all__ = ["Command", "COMMANDS", "run_slash", "command_names", "MODES"]



class Repl(Protocol):
    """What a slash command may use of the REPL that runs it (the REPL implements this)."""

    console: Console
    loaded: LoadedSettings
    project_root: Path
    running: bool

    @property
    def rt(self) -> Runtime: ...

    def current_mode(self) -> str: ...

    def set_mode(self, mode: str) -> None: ...

    def new_conversation(self) -> None: ...

    def resume(self, session_id: str) -> None: ...

    def run_custom(self, command: CustomCommand, arguments: str) -> None: ...

    def run_turn(self, typed: str) -> None: ...


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    run: Callable[[Repl, str], None]
    usage: str = ""


def _help(repl: Repl, arg: str) -> None:
    out = Text("Commands\n", "bold")
    for cmd in COMMANDS.values():
        out.append(f"  /{cmd.name}{' ' + cmd.usage if cmd.usage else ''}".ljust(22), "cyan")
        out.append(cmd.help + "\n")
    _help_custom(repl, out)
    _help_extensions(repl, out)
    out.append("\nKeys\n", "bold")
    out.append("  Enter send · Alt-Enter or Esc Enter or Ctrl-J newline · Ctrl-R search history\n"
               "  Shift-Tab next mode (default → accept-edits → plan)\n"
               "  Ctrl-C stop the running turn (on an empty line: twice to exit) · Ctrl-D exit\n"
               "  @path attaches a project file to your message (Tab completes)\n")
    out.append("\n/undo puts back what the last turn changed — file edits and bash commands alike — "
               "except files git ignores or over the snapshot size cap; /undo N undoes the last N turns.", "dim")
    repl.console.print(out)


def _help_custom(repl: Repl, out: Text) -> None:
    commands = repl.rt.extensions.commands.listed()
    if not commands:
        return
    out.append("\nCustom commands\n", "bold")
    for name, cmd in commands:
        hint = f" {cmd.argument_hint}" if cmd.argument_hint else ""
        out.append(f"  /{name}{hint}".ljust(22), "cyan")
        hidden = " — hidden by the built-in command" if name.lower() in COMMANDS else ""
        out.append(cmd.help_line())
        out.append(f"  ({cmd.source}{hidden})\n", "dim")


def _help_extensions(repl: Repl, out: Text) -> None:
    """One line each for the hooks in force and the sub-agents the ``task`` tool can start."""
    hooks = {event: len(tables) for event, tables in repl.loaded.settings.hooks.items() if tables}
    if hooks:
        out.append("\nHooks  ", "bold")
        out.append(" · ".join(f"{event} {n}" for event, n in hooks.items()) + "  (axon config shows them)\n")
    agents = repl.rt.extensions.agents
    if len(agents) > 1:
        out.append("\nSub-agents (task tool)  ", "bold")
        out.append(", ".join(agents) + "\n")


def _clear(repl: Repl, arg: str) -> None:
    repl.new_conversation()
    print_notice(repl.console, f"started a new conversation (session {repl.rt.session_id})")


def _mode(repl: Repl, arg: str) -> None:
    if not arg:
        repl.console.print(f"mode: [bold]{repl.current_mode()}[/]  (choose one of: {', '.join(MODES)})")
        return
    if arg not in MODES:
        close = difflib.get_close_matches(arg, MODES, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        print_error(repl.console, f"unknown mode {arg!r} (one of: {', '.join(MODES)}){hint}")
        return
    from axon_cli.policy.modes import DESCRIPTIONS, auto_fallback_note

    repl.set_mode(arg)
    repl.console.print(f"mode: [bold]{arg}[/] — {DESCRIPTIONS[arg]}")
    note = auto_fallback_note(arg, getattr(repl.rt.policy, "containment", None))
    if note:
        print_notice(repl.console, note)


def _plan(repl: Repl, arg: str) -> None:
    """``/plan``: switch to plan mode; ``/plan TEXT`` switches and sends TEXT."""
    _mode(repl, "plan")
    if arg:
        repl.run_turn(arg)


def _model(repl: Repl, arg: str) -> None:
    settings = repl.rt.llm.settings
    if not arg:
        repl.console.print(f"model: [bold]{settings.model}[/]")
        return
    try:
        repl.rt.switch_model(arg)
    except ValueError as e:
        print_error(repl.console, f"cannot use model {arg!r}: {e}")
        return
    repl.console.print(f"model: [bold]{arg}[/] (from the next request)")


def _tools(repl: Repl, arg: str) -> None:
    registry = repl.rt.registry
    out = Text("Active tools\n", "bold")
    for spec in registry.active():
        out.append(f"  {spec.name:<16}", "cyan")
        out.append(spec.one_line()[:90])
        out.append(f"  ({spec.source})\n" if spec.source.startswith("python:") else "\n", "dim")
    deferred = registry.deferred()
    if deferred:
        out.append("Deferred (the model activates them with tool_search)\n", "bold")
        for spec in deferred:
            out.append(f"  {spec.name:<16}", "dim cyan")
            out.append(spec.one_line()[:90] + "\n", "dim")
    out.rstrip()
    repl.console.print(out)


def _permissions(repl: Repl, arg: str) -> None:
    from axon_cli.app.reports.permissions import show_rules

    repl.console.print(Text(show_rules(repl.loaded, repl.project_root)))


def _cost(repl: Repl, arg: str) -> None:
    repl.console.print(Text(repl.rt.cost_text()))


def _compact(repl: Repl, arg: str) -> None:
    repl.console.print(Text(repl.rt.compact(arg or None)))


def _undo(repl: Repl, arg: str) -> None:
    if arg and (not arg.isdigit() or int(arg) < 1):
        print_error(repl.console, f"/undo takes a number of turns (got {arg!r})")
        return
    for line in repl.rt.undo(int(arg or 1)):
        head = not line.startswith(" ")
        repl.console.print(Text(("↶ " if head else "") + line, "bold green" if head else
                                "yellow" if line.lstrip().startswith("skipped") else "green"))


def _jobs(repl: Repl, arg: str) -> None:
    """List the session's background jobs; ``/jobs kill ID`` stops one."""
    from axon_cli.tools.builtin.bash.background import job_table, jobs_lines

    verb, _, job_id = arg.partition(" ")
    if verb == "kill" and job_id.strip():
        table = job_table(repl.rt.ctx, create=False)
        if table is None:
            print_error(repl.console, "no background jobs in this session")
            return
        job = table.kill(job_id.strip())          # an unknown id: a ToolError, shown as one line
        print_notice(repl.console, f"{job.id}: {job.status()}")
        return
    if arg:
        print_error(repl.console, f"/jobs lists the background jobs; /jobs kill ID stops one (got {arg!r})")
        return
    lines = jobs_lines(repl.rt.ctx.extra)
    repl.console.print(Text("\n".join(lines) if lines else "no background jobs in this session "
                            "(the model starts them with bash run_in_background)"))


def _resume(repl: Repl, arg: str) -> None:
    repl.resume(arg)


def _exit(repl: Repl, arg: str) -> None:
    repl.running = False


COMMANDS: dict[str, Command] = {c.name: c for c in [
    Command("help", "this help", _help),
    Command("clear", "start a new conversation", _clear),
    Command("mode", "show or set the permission mode", _mode, "[name]"),
    Command("plan", "plan mode: change nothing, end with a plan (TEXT: sent)", _plan, "[text]"),
    Command("model", "show or set the model", _model, "[name]"),
    Command("tools", "list active and deferred tools", _tools),
    Command("permissions", "show the effective permission rules", _permissions),
    Command("cost", "tokens and cost of this session", _cost),
    Command("compact", "summarise the history to free context", _compact, "[focus]"),
    Command("undo", "put back what the last turn (or N turns) changed", _undo, "[N]"),
    Command("jobs", "list background jobs (kill ID stops one)", _jobs, "[kill ID]"),
    Command("resume", "list sessions, or resume one", _resume, "[id]"),
    Command("exit", "leave axon (also Ctrl-D)", _exit),
]}
ALIASES = {"quit": "exit", "q": "exit", "?": "help", "new": "clear"}


def command_names(repl: Repl | None = None) -> list[tuple[str, str]]:
    """``(name, help)`` of the built-in commands, then of the custom ones (for completion)."""
    names = [(c.name, c.help) for c in COMMANDS.values()]
    if repl is not None:
        names += [(name, f"{c.argument_hint} — {c.help_line()}" if c.argument_hint else c.help_line())
                  for name, c in repl.rt.extensions.commands.listed() if name.lower() not in COMMANDS]
    return names


def run_slash(repl: Repl, line: str) -> None:
    """Run one ``/command [arg]``; an unknown command suggests the closest; errors are one line."""
    typed, _, arg = line[1:].strip().partition(" ")
    name = ALIASES.get(typed.lower(), typed.lower())
    cmd = COMMANDS.get(name)
    custom = repl.rt.extensions.commands
    if cmd is None and (typed in custom.commands or name in custom.commands):
        repl.run_custom(custom.commands.get(typed) or custom.commands[name], arg.strip())
        return
    if cmd is None and (typed in custom.unloaded or name in custom.unloaded):
        print_error(repl.console, f"/{typed}: {custom.unloaded.get(typed) or custom.unloaded[name]}")
        return
    if cmd is None:
        close = difflib.get_close_matches(name, [*COMMANDS, *custom.commands], n=1, cutoff=0.5)
        hint = f" — did you mean /{close[0]}?" if close else ""
        print_error(repl.console, f"unknown command /{name}{hint} (/help lists them)")
        return
    try:
        cmd.run(repl, arg.strip())
    except (AxonError, ToolError) as e:
        print_error(repl.console, str(e))
