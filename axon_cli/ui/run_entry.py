"""``axon run``'s arguments and body, shared by the typer command and the fast path that skips typer.

Importing typer and building the command tree costs a few tens of milliseconds, which ``axon run``
pays on every start (the ``axon run hi`` row of bench/run). ``parse_run_argv`` reads the common
shapes of ``axon run``'s arguments itself: ``--flag``, ``--option VALUE``, ``--option=VALUE``,
``-m VALUE``, one TASK anywhere. Anything else (``--help``, an unknown or combined flag, a value
that looks like a flag, a second TASK, a bad number, ``--``) returns None, and typer reads the
arguments and reports the mistake in its own words. ``tests/ui/test_run_entry.py`` holds the
tables below against typer's own definition of the command, so the two cannot drift apart.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from axon_cli.ui.command_support import fail, guard, load, project_root, setup_logging

__all__ = ["RunArgs", "parse_run_argv", "run", "VALUE_OPTIONS", "FLAG_OPTIONS"]


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


# option spelling -> parameter; every spelling typer accepts for the command (held against it by a test)
VALUE_OPTIONS = {"--model": "model", "-m": "model", "--base-url": "base_url", "--mode": "mode",
                 "--sandbox": "sandbox", "--tool-protocol": "tool_protocol", "--max-turns": "max_turns",
                 "--output-format": "output_format", "--resume": "resume", "-r": "resume", "--command": "command"}
FLAG_OPTIONS = {"--yes": "yes", "-y": "yes", "--continue": "cont", "-c": "cont", "--debug": "debug",
                "--trust": "trust"}


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
    from axon_cli.ui.run_command import run_task

    root = project_root()
    setup_logging(root, args.debug)
    given = task
    code = guard(lambda: run_task(
        load(root, trust_run=args.trust, model=args.model, base_url=args.base_url, mode=args.mode,
             sandbox=args.sandbox, tool_protocol=args.tool_protocol),
        root, given, yes=args.yes, max_turns=args.max_turns, output_format=args.output_format, cont=args.cont,
        resume=args.resume, command=args.command))
    return code or 0
