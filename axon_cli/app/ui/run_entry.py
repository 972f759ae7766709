"""``axon run``'s arguments and body, shared by the typer command and the fast path that skips typer.

``RUN_OPTIONS`` is the one description of ``axon run``'s options: the fast path's tables below and the
typer command (``cli.py`` builds its signature from it) are both made from it.

Importing typer and building the command tree costs a few tens of milliseconds, which ``axon run``
pays on every start (the ``axon run hi`` row of bench/run). ``parse_run_argv`` reads the common
shapes of ``axon run``'s arguments itself: ``--flag``, ``--option VALUE``, ``--option=VALUE``,
``-m VALUE``, one TASK anywhere. Anything else (``--help``, an unknown or combined flag, a value
that looks like a flag, a second TASK, a bad number, ``--``) returns None, and typer reads the
arguments and reports the mistake in its own words. ``tests/ui/test_run_entry.py`` holds the
tables below against typer's own definition of the command.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from axon_cli.app.ui.command_support import fail, guard, load, project_root, setup_logging

__all__ = ["RunArgs", "RunOption", "RUN_OPTIONS", "TASK_HELP", "RUN_HELP", "option", "parse_run_argv", "run",
           "VALUE_OPTIONS", "FLAG_OPTIONS"]


@dataclass(frozen=True)
class RunArgs:
    """The parameters of ``axon run``, named as the typer command names them."""

    task: str | None = None
    model: str | None = None
    base_url: str | None = None
    mode: str | None = None
    sandbox: str | None = None
    tool_protocol: str | None = None
    yes: bool = False
    max_turns: int | None = None
    output_format: str = "text"
    cont: bool = False
    resume: str | None = None
    command: str | None = None
    debug: bool = False
    trust: bool = False


@dataclass(frozen=True)
class RunOption:
    """One option of ``axon run``: the ``RunArgs`` field it sets, its spellings, its help; a flag, or
    a value (an integer with ``minimum`` when it has one)."""

    param: str
    spellings: tuple[str, ...]
    help: str
    flag: bool = False
    minimum: int | None = None
    default: str | None = None        # a value option's default (a flag's is False)


RUN_HELP = "Run one task non-interactively and print the answer."
TASK_HELP = "The task ('-' or omitted with piped stdin: read from stdin); with --command, the command's arguments."
RUN_OPTIONS: tuple[RunOption, ...] = (
    RunOption("model", ("--model", "-m"), "Model name (env AXON_MODEL)."),
    RunOption("base_url", ("--base-url",), "OpenAI-compatible endpoint (env OPENAI_BASE_URL)."),
    RunOption("mode", ("--mode",), "Permission mode: read-only | plan | default | accept-edits | auto | yolo."),
    RunOption("sandbox", ("--sandbox",), "auto | off | read-only | workspace-write (default auto: "
              "workspace-write where bubblewrap works)."),
    RunOption("tool_protocol", ("--tool-protocol",), "native | text | auto (text: for small local models)."),
    RunOption("yes", ("--yes", "-y"), "Approve every call that would ask (never a deny).", flag=True),
    RunOption("max_turns", ("--max-turns",), "Stop after N model requests (default 50; exit code 3).", minimum=1),
    RunOption("output_format", ("--output-format",), "text | json | stream-json.", default="text"),
    RunOption("cont", ("--continue", "-c"), "Continue this project's latest session.", flag=True),
    RunOption("resume", ("--resume", "-r"), "Continue session ID (see `axon sessions`)."),
    RunOption("command", ("--command",), "Run custom command NAME (.axon/commands/NAME.md or "
              ".claude/commands/NAME.md); TASK is its $ARGUMENTS."),
    RunOption("debug", ("--debug",), "Write a debug log to .axon/debug.log.", flag=True),
    RunOption("trust", ("--trust",), "Trust this folder's settings for this run only (env AXON_TRUST=1).", flag=True),
)


def option(param: str) -> RunOption:
    """The option that sets ``param`` (commands sharing one, e.g. ``--model``, take it from here)."""
    return next(o for o in RUN_OPTIONS if o.param == param)


# option spelling -> parameter, for the fast path
VALUE_OPTIONS = {s: o.param for o in RUN_OPTIONS if not o.flag for s in o.spellings}
FLAG_OPTIONS = {s: o.param for o in RUN_OPTIONS if o.flag for s in o.spellings}


def parse_run_argv(argv: list[str]) -> RunArgs | None:
    """``argv``: what follows ``run``. The arguments as typer would read them, or None when typer
    should read them (see the module doc)."""
    values: dict[str, Any] = {}
    task: str | None = None
    rest = list(argv)
    while rest:
        arg = rest.pop(0)
        if arg == "-" or not arg.startswith("-"):
            if task is not None:
                return None                      # a second TASK: typer's error
            task = arg
            continue
        name, eq, inline = arg.partition("=")
        if name in FLAG_OPTIONS and not eq:
            values[FLAG_OPTIONS[name]] = True
        elif name in VALUE_OPTIONS and (eq or arg == name):
            if eq and not name.startswith("--"):
                return None                      # -m=x: typer's reading
            if not eq:
                if not rest or rest[0].startswith("-"):
                    return None
                inline = rest.pop(0)
            values[VALUE_OPTIONS[name]] = inline
        else:
            return None
    if "max_turns" in values:
        values["max_turns"] = _at_least_one(values["max_turns"])
        if values["max_turns"] is None:
            return None
    return RunArgs(task=task, **values)


def _at_least_one(text: str) -> int | None:
    """``--max-turns``' value as typer takes it (an integer, at least 1), or None."""
    try:
        number = int(text)
    except ValueError:
        return None
    return number if number >= 1 else None


def run(args: RunArgs) -> int:
    """Check the arguments, read a piped task, run it; the exit code (a mistake: ``SystemExit``)."""
    if args.output_format not in ("text", "json", "stream-json"):
        fail(f"--output-format must be text, json or stream-json (got {args.output_format!r})", 2)
    task = args.task
    if args.command is not None and task is None:
        task = ""                        # a command needs no arguments
    if task is None or task == "-":
        if sys.stdin is None or sys.stdin.isatty():
            fail("no task: give TASK as an argument, or pipe it on stdin with TASK '-'", 2)
        task = sys.stdin.read()
    if args.command is None and not task.strip():
        fail("no task: give TASK as an argument, or pipe it on stdin with TASK '-'", 2)
    from axon_cli.app.ui.run_command import run_task

    root = project_root()
    setup_logging(root, args.debug)
    given = task
    code = guard(lambda: run_task(
        load(root, trust_run=args.trust, model=args.model, base_url=args.base_url, mode=args.mode,
             sandbox=args.sandbox, tool_protocol=args.tool_protocol),
        root, given, yes=args.yes, max_turns=args.max_turns, output_format=args.output_format, cont=args.cont,
        resume=args.resume, command=args.command))
    return code or 0
