"""The ``bash`` tool: one shell command in the project root, with full control of its processes.

The command runs as ``bash -c`` (``/bin/sh`` without bash) in a new session, so it leads its own
process group. stdin is closed and the environment says non-interactive; axon's credentials are
removed from it. stdout and stderr share one pipe (their order is kept). Output is masked and
streamed to a spill file as it arrives; memory holds only a head and a tail window.

No process outlives the call (``processes.kill_tree``): when the command ends, times out, is
cancelled or anything fails, everything it started is ended — on Linux through its keeper
(``machinery/sandbox/lifetime.py``: a subreaper parent that also ends it all when axon itself ends, however
it ends), so processes that left the group (``setsid``, ``setsid env -i …``, double forks) too. With
``--sandbox`` on, the command also runs under bubblewrap in its own pid namespace, which dies with it.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
import uuid
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from axon_cli.kernel.errors import ConfigError
from axon_cli.machinery import sandbox
from axon_cli.machinery.sandbox import SandboxStatus
from axon_cli.policy.modes import CHANGES_NOTHING
from axon_cli.tools.builtin.bash.background import background_specs
from axon_cli.tools.calls import CallFacts
from axon_cli.tools.schema import model_schema
from axon_cli.tools.spec import CallEnv, Cancelled, ToolContext, ToolError, ToolOutput, ToolSpec

if TYPE_CHECKING:
    from axon_cli.tools.builtin.bash.capture import StreamCapture

# The machinery (processes, pump, capture, jobs, hints, notes) is imported when a command runs.

__all__ = ["build_tools", "BashInput", "bash_spec", "run_command", "sandbox_mode", "MAX_TIMEOUT", "MAX_RESULT_CHARS",
           "SESSION_ENV_KEY"]

MAX_TIMEOUT = 600.0
SESSION_ENV_KEY = "session_env"   # ToolContext.extra: variables SessionStart hooks set (session/extend/session_env.py)
MAX_RESULT_CHARS = 30_000
FOOTER_RESERVE = 100        # room kept for the last line (exit code / timeout) within the budget
READ_ONLY_MODES = CHANGES_NOTHING   # permission modes whose commands run in the read-only sandbox

DESCRIPTION = """Run a shell command (bash -c) in the project root and return its output and exit code.
stdin is closed and nothing is interactive (CI=1, pagers off, no git prompts): pass flags such as -y
instead of expecting prompts. stdout and stderr are merged in order. Default timeout 120 s (at most
600); on timeout the whole process group is killed. Background processes (`cmd &`) are stopped when
the command finishes; for a server or watcher pass run_in_background=true instead (a job id for
bash_output and kill_shell). Long output keeps its head and tail; the full output is saved to a
file you can page through with read_file."""


class BashInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    command: str = Field(min_length=1, description="the shell command line")
    timeout: float | None = Field(None, gt=0, le=MAX_TIMEOUT,
                                  description="seconds before the command is killed (default 120, max 600)")
    run_in_background: bool = Field(False, description="run as a background job, return at once")
    outside_sandbox: SkipJsonSchema[bool] = False   # shown (and described) only under an auto sandbox


# -- the handler ----------------------------------------------------------------------------------
def run_command(command: str, ctx: ToolContext, timeout: float, status: SandboxStatus,
                background: bool = False) -> ToolOutput:
    """Run ``command`` to completion (or timeout / cancellation) and build the result; ``status`` is
    the session's sandbox, ``ctx.call`` this call's permission decision. ``background``: start it as
    a job of the session (``background.start_job``) and return at once."""
    from axon_cli.machinery.sandbox.child_env import child_env
    from axon_cli.tools.builtin.bash.hints import background_note
    from axon_cli.tools.builtin.bash.processes import RUN_MARKER, shell_path

    ctx.check_cancelled()
    run_id = uuid.uuid4().hex
    env = child_env()
    env.update(ctx.extra.get(SESSION_ENV_KEY) or {})      # what SessionStart hooks set (CLAUDE_ENV_FILE)
    env[RUN_MARKER] = run_id
    mode = sandbox_mode(status, str(getattr(ctx.settings, "mode", "")), ctx.call)
    hide = list(getattr(ctx.settings, "sandbox_hide", None) or [])
    sockets = list(getattr(ctx.settings, "sandbox_allow_sockets", None) or [])
    try:
        sandbox.check_available(mode)       # bwrap gone since start-up: fail, never run unconfined
    except ConfigError as e:
        raise ToolError(str(e)) from None
    with contextlib.ExitStack() as stack:
        try:
            argv = stack.enter_context(sandbox.confine([shell_path(), "-c", command], mode, ctx.project_root,
                                                       home=env.get("HOME"), hide=hide, allow_sockets=sockets))
        except OSError as e:
            raise ToolError(f"could not prepare the sandbox: {e.strerror or e}") from None
        if background:           # the job holds the sandbox's mount points until it ends
            from axon_cli.machinery.sandbox import netns
            from axon_cli.tools.builtin.bash.background import start_job
            return start_job(command, argv, env, run_id, ctx, stack.pop_all(),
                             background_note(mode, _may_leave(status, ctx.call, mode), netns.active()),
                             verdict=_verdict(mode, ctx))
        return _run(argv, env, run_id, ctx, timeout, mode, _may_leave(status, ctx.call, mode), command)


def sandbox_mode(status: SandboxStatus, permission_mode: str, call: CallEnv) -> str:
    """The effective sandbox of this call: ``read-only`` whenever the permission mode changes nothing
    and a sandbox is on (so what the shell analysis misses cannot write either); else ``off`` for a
    call the permission stage approved to run outside an ``auto`` sandbox; a sandbox that was asked
    for by name is never skipped."""
    if status.mode != "off" and permission_mode in READ_ONLY_MODES:
        return "read-only"
    if call.decision is not None and call.decision.outside_sandbox and status.requested == "auto":
        return "off"
    return status.mode


def _verdict(mode: str, ctx: ToolContext) -> Any:
    """The gate's word on where this command runs (``sandbox.outside.shell_verdict``)."""
    from axon_cli.machinery.sandbox.outside import shell_verdict

    decision = ctx.call.decision
    return shell_verdict(mode, decision.outside_sandbox if decision is not None else None)


def _may_leave(status: SandboxStatus, call: CallEnv, mode: str) -> bool:
    """Whether this call could run outside the sandbox if asked (its failure note says how)."""
    decision = call.decision
    return mode != "off" and status.requested == "auto" and not (decision and decision.stays_sandboxed)


def _run(argv: list[str], env: dict[str, str], run_id: str, ctx: ToolContext, timeout: float,
         mode: str, may_leave: bool, command: str = "") -> ToolOutput:
    from axon_cli.machinery.masking import default_masker
    from axon_cli.machinery.sandbox import outside
    from axon_cli.tools.builtin.bash.capture import StreamCapture
    from axon_cli.tools.builtin.bash.hints import BACKGROUND_HINT, looks_long_running
    from axon_cli.tools.builtin.bash.path_notes import missing_path_note
    from axon_cli.tools.builtin.bash.pump import run_to_end, widen_pipe

    capture = StreamCapture(MAX_RESULT_CHARS - FOOTER_RESERVE, ctx.state_dir, "bash", default_masker())
    started = time.monotonic()
    try:
        proc = outside.popen(argv, _verdict(mode, ctx), cwd=ctx.project_root, env=env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
    except OSError as e:
        raise ToolError(f"could not start the shell: {e.strerror or e}") from None
    widen_pipe(proc)
    outcome = run_to_end(proc, capture, ctx.cancel, started + timeout, run_id)   # nothing it started outlives it
    if outcome == "cancelled":
        raise Cancelled()
    out = _result(capture, proc.returncode, outcome == "timeout", timeout, time.monotonic() - started, mode,
                  may_leave)
    missing = missing_path_note(out.text, ctx) if proc.returncode else ""
    if outcome == "timeout" and looks_long_running(command):
        missing = (missing + "\n" if missing else "") + BACKGROUND_HINT
    if missing:
        out.text += "\n" + missing
    return out


def _result(capture: StreamCapture, code: int | None, timed_out: bool, timeout: float,
            elapsed: float, mode: str = "off", may_leave: bool = False) -> ToolOutput:
    body = capture.text() if capture.total else "(no output)"
    if timed_out:
        last = f"timed out after {timeout:g} s, process group killed"
        summary = f"timed out after {timeout:g} s"
    elif code is not None and code < 0:
        name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
        last = f"exit code {code} (killed by {name})"
        summary = f"killed by {name} in {elapsed:.1f} s"
    else:
        last = f"exit code {code}"
        summary = f"exit {code} in {elapsed:.1f} s"
    text = body + ("" if body.endswith("\n") else "\n") + last
    note = sandbox.explain(body, mode, may_leave) if capture.total else None
    if note:
        text += "\n" + note
    display: dict[str, Any] = {"exit_code": code, "timed_out": timed_out, "duration_s": round(elapsed, 3),
                               "output_chars": capture.total}
    return ToolOutput(text, is_error=timed_out, summary=summary, display=display, spill_path=capture.spill_path)


def _handler(tool_input: BashInput, ctx: ToolContext, status: SandboxStatus | None) -> ToolOutput:
    if status is None:
        raise ToolError("this bash tool was built without the session's sandbox status, so it runs nothing")
    default = float(getattr(ctx.settings, "bash_timeout", 120.0) or 120.0)
    timeout = min(tool_input.timeout or default, MAX_TIMEOUT)
    return run_command(tool_input.command, ctx, timeout, status, tool_input.run_in_background)


# -- facts for the permission policy --------------------------------------------------------------
def _analysis(command: str) -> Any:
    try:
        from axon_cli.shell.analyze import analyze
    except ImportError:
        return None
    try:
        return analyze(command)
    except Exception:
        return None


def _read_only(tool_input: BashInput) -> bool:
    facts = _analysis(tool_input.command)
    return bool(facts is not None and facts.read_only)


def _destructive(tool_input: BashInput) -> bool:
    facts = _analysis(tool_input.command)
    return True if facts is None else bool(facts.destructive)


def _facts(tool_input: BashInput) -> CallFacts:
    """Every fact of one command from a single analysis (which the policy reads too)."""
    analysis = _analysis(tool_input.command)
    if analysis is None:
        return CallFacts(destructive=True)
    read_only = bool(analysis.read_only)
    return CallFacts(read_only, bool(analysis.destructive), read_only, (), analysis)


def _summarize(tool_input: BashInput) -> str:
    lines = tool_input.command.strip().splitlines() or [""]
    shown = lines[0] if len(lines) == 1 else f"{lines[0]} …(+{len(lines) - 1} lines)"
    if len(shown) > 200:
        shown = shown[:199] + "…"
    if tool_input.run_in_background:
        return f"{shown} (in the background)"
    return f"{shown} (timeout {tool_input.timeout:g} s)" if tool_input.timeout else shown


def bash_spec(status: SandboxStatus | None) -> ToolSpec[BashInput]:
    """The ``bash`` tool of a session whose sandbox is ``status``: its description states the sandbox's
    rules and, where the sandbox may be left (``auto`` and on), its schema shows ``outside_sandbox``.
    Built without a status (to list or describe the tools) it names no sandbox and runs nothing."""
    mode = status.mode if status is not None else "off"
    may_leave = status is not None and status.leavable

    def handler(tool_input: BashInput, ctx: ToolContext) -> ToolOutput:
        return _handler(tool_input, ctx, status)

    return ToolSpec(
        name="bash", description=sandbox.describe(DESCRIPTION, mode, may_leave), input_model=BashInput,
        handler=handler, category="shell", is_read_only=_read_only, is_destructive=_destructive,
        facts=_facts, summarize=_summarize, max_result_chars=MAX_RESULT_CHARS,
        short_description="Run a shell command in the project root (non-interactive, timeout, exit code)",
        schema_override=_schema_with_exit_argument() if may_leave else None,
    )


def _schema_with_exit_argument() -> dict[str, Any]:
    schema = model_schema(BashInput)
    schema["properties"] = {**schema.get("properties", {}), sandbox.EXIT_ARGUMENT: {"type": "boolean"}}
    return schema


def build_tools(status: SandboxStatus | None) -> list[ToolSpec[Any]]:
    """This module's tools for a session whose sandbox is ``status`` (the registry calls it)."""
    return [bash_spec(status), *background_specs()]
