"""``axon run``: one task, non-interactive; the three output formats consume the same events."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from axon_cli.agent.loop.results import RunResult
from axon_cli.agent.model.endpoints import endpoint_address
from axon_cli.app.telemetry import start_telemetry
from axon_cli.app.ui.headless import Notices, SandboxExits, StreamJson, TextProgress, json_result
from axon_cli.kernel.events import AutoApprover, DenyApprover, Notice, SessionStarted
from axon_cli.kernel.version import __version__
from axon_cli.session.conversation.attach import attach_mentions
from axon_cli.session.runtime.opening import Runtime, open_session
from axon_cli.settings.config import LoadedSettings

__all__ = ["run_task", "EXIT_CODES"]

EXIT_CODES = {"final": 0, "error": 1, "max_turns": 3, "interrupted": 130}


def run_task(loaded: LoadedSettings, project_root: Path, task: str, *, yes: bool, max_turns: int | None,
             output_format: str, cont: bool = False, resume: str | None = None, command: str | None = None) -> int:
    started = time.monotonic()
    approver = AutoApprover() if yes else DenyApprover()
    rt = open_session(loaded, project_root, approver, cont=cont, resume=resume)
    notices = Notices()      # json: every notice on stderr and in the result's "notices"
    found = loaded.trust.assess()
    if loaded.trust.problem or found.pending:        # what the folder's files wait for
        from axon_cli.app.reports.trust import ignored_lines

        for line in ignored_lines(loaded.trust, found):
            if output_format == "json":
                notices.add(line)
            else:
                sys.stderr.write(line + "\n")
    exits = SandboxExits()
    if output_format == "stream-json":     # the frontend first: it gets the notices of the start
        rt.bus.subscribe(StreamJson())
    elif output_format == "text":
        rt.bus.subscribe(TextProgress())
    elif output_format == "json":
        rt.bus.subscribe(notices)
        rt.bus.subscribe(exits)
    note = (lambda line: notices.add(line, f"axon: note: {line}")) if output_format == "json" else _note
    telemetry = start_telemetry(loaded.settings.telemetry, "axon.run", __version__, note)
    if telemetry is not None:
        rt.bus.subscribe(telemetry)
    rt.bus(SessionStarted(session_id=rt.session_id, model=loaded.settings.model, cwd=str(project_root),
                          mode=rt.policy.mode, tools=[s.name for s in rt.registry.active()],
                          endpoint=endpoint_address(loaded.settings.base_url)))
    from axon_cli.kernel.interrupts import ready

    ready()                            # start-up is over: a Ctrl-C now cancels the turn
    try:
        result = _run(rt, task, max_turns, command)
    finally:
        rt.close()
        if telemetry is not None:
            telemetry.close()          # any exit, Ctrl-C and errors too: flushed within its timeout
    code = EXIT_CODES[result.stop_reason]
    if result.stop_reason == "error":
        sys.stderr.write(f"axon: error: {result.result}\n")
    if output_format == "json":
        cost = rt.cost_usd()
        sys.stdout.write(json_result(result.result, result.stop_reason != "final", result.num_turns,
                                     rt.session_id, rt.llm.usage.as_dict(),
                                     int((time.monotonic() - started) * 1000), notices.lines,
                                     **({"cost_usd": round(cost, 6)} if cost is not None else {}),
                                     **({"outside_sandbox": exits.calls} if exits.calls else {})) + "\n")
    elif output_format == "text":
        if result.stop_reason == "final":
            sys.stdout.write(result.result.rstrip("\n") + "\n")
        elif result.stop_reason == "max_turns":
            sys.stderr.write(f"axon: {result.result}\n")
        elif result.stop_reason == "interrupted":
            sys.stderr.write("axon: interrupted\n")
    sys.stdout.flush()
    return code


def _note(line: str) -> None:
    sys.stderr.write(f"axon: note: {line}\n")


def _run(rt: Runtime, task: str, max_turns: int | None, command: str | None) -> RunResult:
    """The task itself (as typed: an ``@path`` in it is not expanded, but ``@shot.png`` brings that
    picture), or custom command ``command`` with the task as its arguments."""
    if command is None:
        turn, notes = attach_mentions(task, rt.project_root, images_only=True)
        for note in notes:
            rt.bus(Notice(message=note))
        return rt.agent.run(turn, max_turns=max_turns)
    from axon_cli.session.extend.command_scope import command_scope
    from axon_cli.session.extend.command_shell import shell_runner
    from axon_cli.session.extend.commands import expand_command, find_command

    found = find_command(rt.extensions.commands, command)
    with command_scope(rt.policy, rt.llm.settings, found):      # its ``!`` lines run with its allowed tools
        turn, notes = expand_command(found, task, rt.project_root, shell_runner(rt.dispatcher, found))
        for note in notes:
            rt.bus(Notice(message=note))
        return rt.agent.run(turn, max_turns=max_turns)
