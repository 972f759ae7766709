"""The ``bash`` tool: one shell command in the project root, with full control of its processes.

The command runs as ``bash -c`` (``/bin/sh`` without bash) in a new session, so it leads its own
process group. stdin is closed and the environment says non-interactive; axon's credentials are
removed from it. stdout and stderr share one pipe (their order is kept). Output is masked and
streamed to a spill file as it arrives; memory holds only a head and a tail window.

No process outlives the call (``processes.kill_tree``): when the command ends, times out, is
cancelled or anything fails, the whole process group is ended, and on Linux the processes that left
it (``setsid``) too. Not covered: a process that both left the group and cleared its environment (e.g.
``setsid env -i …``) — only a sandbox can contain that: with ``--sandbox`` on, the command runs
under bubblewrap (``axon_cli/sandbox/``) in its own pid namespace, which dies with it.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
import uuid
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from axon_cli import sandbox
from axon_cli.errors import ConfigError
from axon_cli.masking import default_masker
from axon_cli.tools.builtin.shell.capture import StreamCapture
from axon_cli.tools.builtin.shell.notes import missing_path_note
from axon_cli.tools.builtin.shell.processes import RUN_MARKER, command_env, kill_tree, shell_path
from axon_cli.tools.builtin.shell.pump import drain, pump, widen_pipe
from axon_cli.tools.spec import CURRENT_DECISION, Cancelled, ToolContext, ToolError, ToolOutput, ToolSpec

__all__ = ["TOOLS", "BashInput", "bash_spec", "run_command", "sandbox_mode", "MAX_TIMEOUT", "MAX_RESULT_CHARS"]

MAX_TIMEOUT = 600.0
MAX_RESULT_CHARS = 30_000
FOOTER_RESERVE = 100        # room kept for the last line (exit code / timeout) within the budget
READ_ONLY_MODES = ("read-only", "plan")   # permission modes whose commands run in the read-only sandbox

DESCRIPTION = """Run a shell command (bash -c) in the project root and return its output and exit code.
stdin is closed and nothing is interactive (CI=1, pagers off, no git prompts): pass flags such as -y
instead of expecting prompts. stdout and stderr are merged in order. Default timeout 120 s (at most
600); on timeout the whole process group is killed. Background processes (`cmd &`) are stopped when
the command finishes, so start a server and query it within one command. Long output keeps its head
and tail; the full output is saved to a file you can page through with read_file."""


class BashInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    command: str = Field(min_length=1, description="the shell command line")
    timeout: float | None = Field(None, gt=0, le=MAX_TIMEOUT,
                                  description="seconds before the command is killed (default 120, max 600)")
    outside_sandbox: SkipJsonSchema[bool] = False   # shown (and described) only under an auto sandbox


# -- the handler ----------------------------------------------------------------------------------
def run_command(command: str, ctx: ToolContext, timeout: float) -> ToolOutput:
    """Run ``command`` to completion (or timeout / cancellation) and build the result."""
    ctx.check_cancelled()
    run_id = uuid.uuid4().hex
    env = command_env()
    env[RUN_MARKER] = run_id
    mode = sandbox_mode(ctx)
    hide = list(getattr(ctx.settings, "sandbox_hide", None) or [])
    sockets = list(getattr(ctx.settings, "sandbox_allow_sockets", None) or [])
    with contextlib.ExitStack() as stack:
        try:
            argv = stack.enter_context(sandbox.confine([shell_path(), "-c", command], mode, ctx.project_root,
                                                       home=env.get("HOME"), hide=hide, allow_sockets=sockets))
        except OSError as e:
            raise ToolError(f"could not prepare the sandbox: {e.strerror or e}") from None
        return _run(argv, env, run_id, ctx, timeout, mode)


def sandbox_mode(ctx: ToolContext) -> str:
    """The effective sandbox of this call: ``read-only`` whenever the permission mode changes nothing
    and a sandbox is on (so what the shell analysis misses cannot write either); else ``off`` for a
    call the permission stage approved to run outside an ``auto`` sandbox; a sandbox that was asked
    for by name is never skipped."""
    mode = _session_sandbox(ctx)
    if mode != "off" and str(getattr(ctx.settings, "mode", "")) in READ_ONLY_MODES:
        return "read-only"
    decision = CURRENT_DECISION.get()
    if decision is not None and decision.outside_sandbox and _requested(ctx) == "auto":
        return "off"
    return mode


def _session_sandbox(ctx: ToolContext) -> str:
    if ctx.sandbox is not None:
        return ctx.sandbox
    try:
        return sandbox.resolve(str(getattr(ctx.settings, "sandbox", "off") or "off")).mode
    except ConfigError as e:
        raise ToolError(str(e)) from None


def _requested(ctx: ToolContext) -> str:
    return str(getattr(ctx.settings, "sandbox", "off") or "off")


def _may_leave(ctx: ToolContext, mode: str) -> bool:
    """Whether this call could run outside the sandbox if asked (its failure note says how)."""
    decision = CURRENT_DECISION.get()
    return mode != "off" and _requested(ctx) == "auto" and not (decision and decision.stays_sandboxed)


def _run(argv: list[str], env: dict[str, str], run_id: str, ctx: ToolContext, timeout: float,
         mode: str) -> ToolOutput:
    capture = StreamCapture(MAX_RESULT_CHARS - FOOTER_RESERVE, ctx.state_dir, "bash", default_masker())
    started = time.monotonic()
    try:
        proc = subprocess.Popen(argv, cwd=ctx.project_root, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
    except OSError as e:
        raise ToolError(f"could not start the shell: {e.strerror or e}") from None
    widen_pipe(proc)
    outcome = "error"
    try:
        outcome = pump(proc, capture, ctx.cancel, started + timeout)
    finally:
        kill_tree(proc, run_id)          # always: nothing the command started outlives the call
        try:
            drain(proc, capture)
        finally:
            assert proc.stdout is not None
            proc.stdout.close()
            capture.close()
    if outcome == "cancelled":
        raise Cancelled()
    out = _result(capture, proc.returncode, outcome == "timeout", timeout, time.monotonic() - started, mode,
                  _may_leave(ctx, mode))
    missing = missing_path_note(out.text, ctx) if proc.returncode else ""
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


def _handler(tool_input: BashInput, ctx: ToolContext) -> ToolOutput:
    default = float(getattr(ctx.settings, "bash_timeout", 120.0) or 120.0)
    timeout = min(tool_input.timeout or default, MAX_TIMEOUT)
    return run_command(tool_input.command, ctx, timeout)


# -- facts for the permission policy --------------------------------------------------------------
def _analysis(command: str) -> Any:
    try:
        from axon_cli.permissions.shell.analyze import analyze
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


def _summarize(tool_input: BashInput) -> str:
    lines = tool_input.command.strip().splitlines() or [""]
    shown = lines[0] if len(lines) == 1 else f"{lines[0]} …(+{len(lines) - 1} lines)"
    if len(shown) > 200:
        shown = shown[:199] + "…"
    return f"{shown} (timeout {tool_input.timeout:g} s)" if tool_input.timeout else shown


bash_spec: ToolSpec[BashInput] = ToolSpec(
    name="bash", description=DESCRIPTION, input_model=BashInput, handler=_handler, category="shell",
    is_read_only=_read_only, is_destructive=_destructive,
    summarize=_summarize, max_result_chars=MAX_RESULT_CHARS,
    short_description="Run a shell command in the project root (non-interactive, timeout, exit code)",
)

TOOLS: list[ToolSpec[Any]] = [bash_spec]
