"""``bash`` with ``run_in_background``, and the tools that read and stop such jobs.

``bash(command, run_in_background=true)`` starts the command exactly as a foreground call would
(the same permission decision, sandbox, environment and masking) and returns at once with a job
id. ``bash_output(job_id)`` returns what the job printed since the last read (masked and capped
like any output) and whether it still runs; ``kill_shell(job_id)`` ends its whole process group.
Both are deferred until the session starts its first job, which activates them. The jobs live in
the session's ``JobTable`` (``ctx.extra[JOBS_KEY]``), which the runtime closes with the session.
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from axon_cli.tools.spec import ToolContext, ToolError, ToolOutput, ToolSpec

if TYPE_CHECKING:
    from axon_cli.tools.builtin.bash.jobs import Job, JobTable

# The jobs' machinery (``jobs``: processes, pump, capture) is imported when the first job starts.

__all__ = ["JOBS_KEY", "JOB_TOOLS", "job_table", "start_job", "background_specs", "jobs_lines", "close_jobs",
           "OUTPUT_LIMIT"]

JOBS_KEY = "bash_jobs"      # ToolContext.extra: the session's JobTable
JOB_TOOLS = ("bash_output", "kill_shell")
NEW_OUTPUT_WAIT = 5.0       # seconds bash_output waits for output when there is none new yet
OUTPUT_LIMIT = 30_000       # chars of one bash_output result (the rest: head + tail, spill file)
_TABLE_LOCK = threading.Lock()


def job_table(ctx: ToolContext, create: bool = True) -> JobTable | None:
    """The session's job table (made on first use unless ``create`` is false)."""
    with _TABLE_LOCK:
        table = ctx.extra.get(JOBS_KEY)
        if table is None and create:
            from axon_cli.tools.builtin.bash.jobs import JobTable
            table = ctx.extra[JOBS_KEY] = JobTable()
        return table


def close_jobs(extra: dict[str, Any]) -> None:
    """End every background job of a session (its runtime closes)."""
    table = extra.get(JOBS_KEY)
    if table is None:                       # no job ever started: nothing to load or end
        return
    from axon_cli.tools.builtin.bash.jobs import JobTable
    if isinstance(table, JobTable):
        table.close()


def start_job(command: str, argv: list[str], env: dict[str, str], run_id: str, ctx: ToolContext,
              stack: contextlib.ExitStack, sandbox_note: str, verdict: Any = None) -> ToolOutput:
    """Start ``argv`` (the prepared, maybe sandboxed, shell) as a background job; the result says how
    to follow it."""
    from axon_cli.machinery.masking import default_masker
    from axon_cli.tools.builtin.bash.jobs import JobCapture

    table = job_table(ctx)
    assert table is not None
    capture = JobCapture(OUTPUT_LIMIT, ctx.state_dir, "bash", default_masker())
    job = table.start(command, argv, env, run_id, ctx.project_root, capture, stack, verdict=verdict)
    if ctx.registry is not None:
        ctx.registry.activate(JOB_TOOLS)
    text = (f"Started in the background as job {job.id}. Read its output with "
            f'bash_output(job_id="{job.id}") (each call returns what is new); stop it with '
            f'kill_shell(job_id="{job.id}"). It is stopped when the session ends.')
    if sandbox_note:
        text += "\n" + sandbox_note
    return ToolOutput(text, summary=f"started {job.id}",
                      display={"job_id": job.id, "background": True})


# -- bash_output ----------------------------------------------------------------------------------
class BashOutputInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    job_id: str = Field(min_length=1, description="the id bash returned for a background command (e.g. job-1)")


def _table_or_error(ctx: ToolContext) -> JobTable:
    table = job_table(ctx, create=False)
    if table is None:
        raise ToolError("no background jobs in this session: start one with bash(command, run_in_background=true)")
    return table


def bash_output(inp: BashOutputInput, ctx: ToolContext) -> ToolOutput:
    job = _table_or_error(ctx).get(inp.job_id)
    job.wait_output(NEW_OUTPUT_WAIT, ctx.cancel)
    running = job.running                    # read before the output: an exit seen now has all its output
    new, size = job.capture.take_new(OUTPUT_LIMIT - 200)
    status = "running" if running else job.status()
    body = new if size else "(no new output)"
    text = body + ("" if body.endswith("\n") else "\n") + f"[{job.id} {status}]"
    if job.capture.spill_path and size > OUTPUT_LIMIT - 200:
        text += f"\n[the job's full output is in {ctx.relative(Path(job.capture.spill_path))}]"
    return ToolOutput(text, summary=f"{job.id} {status}, {size} new chars",
                      display={"job_id": job.id, "status": status, "new_chars": size})


# -- kill_shell -----------------------------------------------------------------------------------
class KillShellInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    job_id: str = Field(min_length=1, description="the id of the background job to stop")


def kill_shell(inp: KillShellInput, ctx: ToolContext) -> ToolOutput:
    table = _table_or_error(ctx)
    job = table.get(inp.job_id)
    if not job.running:
        return ToolOutput(f"{job.id} had already ended: {job.status()}", summary=f"{job.id} {job.status()}")
    table.kill(job.id)
    return ToolOutput(f"{job.id} stopped (its whole process group); use bash_output to read what it printed last",
                      summary=f"{job.id} killed", display={"job_id": job.id, "status": job.status()})


def jobs_lines(extra: dict[str, Any]) -> list[str]:
    """One line per background job of the session (``/jobs``)."""
    table = extra.get(JOBS_KEY)
    if table is None:
        return []
    from axon_cli.machinery.masking import default_masker
    from axon_cli.tools.builtin.bash.jobs import JobTable

    jobs: list[Job] = table.jobs() if isinstance(table, JobTable) else []
    mask = default_masker()
    return [f"{j.id}  {j.status():<16} {j.elapsed():>6.0f} s  {_short(mask(j.command))}" for j in jobs]


def _short(command: str) -> str:
    line = command.strip().splitlines()[0] if command.strip() else ""
    return line if len(line) <= 80 else line[:79] + "…"


def background_specs() -> list[ToolSpec[Any]]:
    return [
        ToolSpec(name="bash_output", description=(
            "Read what a background job (bash with run_in_background=true) printed since the last read, "
            "and whether it is still running or exited (with its exit code). With nothing new yet, it waits "
            "up to 5 s for output. Poll it to wait for a server's ready line."), input_model=BashOutputInput, handler=bash_output, category="other",
            is_read_only=lambda _i: True, deferred=True, listed=False, summarize=lambda i: i.job_id,
            short_description="New output and status of a background bash job"),
        ToolSpec(name="kill_shell", description=(
            "Stop a background job started with bash(run_in_background=true): its whole process group "
            "(children included) is ended."), input_model=KillShellInput, handler=kill_shell, category="other",
            is_read_only=lambda _i: False, is_destructive=lambda _i: False, is_concurrency_safe=lambda _i: True,
            deferred=True, listed=False, summarize=lambda i: i.job_id,
            short_description="Stop a background bash job (its whole process group)"),
    ]
