"""Background jobs: the job table, ``bash_output``/``kill_shell`` through dispatch, the new-output
buffer's bounds and masking, the server hint, and polls that see new output not being refused."""

from __future__ import annotations

import contextlib
import json
import os
import time
import uuid
from pathlib import Path

import pytest

from axon_cli.machinery.masking import default_masker
from axon_cli.machinery.sandbox import resolve
from axon_cli.machinery.sandbox.child_env import child_env
from axon_cli.settings.config import Settings
from axon_cli.tools.builtin.bash.background import JOBS_KEY, close_jobs, jobs_lines
from axon_cli.tools.builtin.bash.hints import looks_long_running
from axon_cli.tools.builtin.bash.jobs import MAX_RUNNING, JobCapture, JobTable
from axon_cli.tools.builtin.bash.processes import RUN_MARKER
from axon_cli.tools.dispatch import CallResult, Dispatcher, ToolCall
from axon_cli.tools.ledger import CallLedger
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext, ToolError

DEADLINE = 15.0


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "proj"
    root.mkdir()
    return ToolContext(project_root=root, state_dir=root / ".axon", session_id="s-jobs",
                       settings=Settings(sandbox="off"))


@pytest.fixture
def dispatcher(ctx: ToolContext):  # type: ignore[no-untyped-def]
    ctx.registry = ToolRegistry.with_builtins(resolve("off"))
    yield Dispatcher(ctx.registry, ctx)
    close_jobs(ctx.extra)


def call(d: Dispatcher, name: str, **args: object) -> CallResult:
    return d.dispatch(ToolCall(f"c{uuid.uuid4().hex[:6]}", name, json.dumps(args)))


def marked(run_id: str) -> list[int]:
    needle = f"{RUN_MARKER}={run_id}".encode()
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError, IndexError):
            with open(f"/proc/{entry}/stat", "rb") as fh:
                if fh.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if needle in fh.read().split(b"\0"):
                    found.append(int(entry))
    return found


def start(table: JobTable, ctx: ToolContext, command: str):  # type: ignore[no-untyped-def]
    run_id = uuid.uuid4().hex
    env = {**child_env(), RUN_MARKER: run_id}
    capture = JobCapture(1000, ctx.state_dir, "bash", default_masker())
    return table.start(command, ["bash", "-c", command], env, run_id, ctx.project_root, capture,
                       contextlib.ExitStack())


def wait(check, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + DEADLINE
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_a_job_runs_to_its_exit_and_its_output_is_read_once(ctx: ToolContext) -> None:
    table = JobTable()
    job = start(table, ctx, "echo one; echo two; exit 3")
    assert job.done.wait(DEADLINE)
    assert job.status() == "exited (code 3)"
    assert job.capture.take_new(1000) == ("one\ntwo\n", 8)
    assert job.capture.take_new(1000) == ("", 0)
    table.close()


def test_kill_ends_children_that_ignore_sigterm(ctx: ToolContext) -> None:
    table = JobTable()
    job = start(table, ctx, "trap '' TERM; (trap '' TERM; sleep 300) & sleep 300")
    wait(lambda: len(marked(job.run_id)) >= 2, "the job's processes")
    table.kill(job.id)
    assert job.status() == "killed"
    assert marked(job.run_id) == []
    table.close()


def test_close_ends_every_job_and_refuses_new_ones(ctx: ToolContext) -> None:
    table = JobTable()
    jobs = [start(table, ctx, "sleep 300") for _ in range(2)]
    wait(lambda: all(marked(j.run_id) for j in jobs), "both jobs")
    table.close()
    assert all(marked(j.run_id) == [] and j.status() == "killed" for j in jobs)
    with pytest.raises(ToolError, match="the session is ending"):
        start(table, ctx, "true")


def test_at_most_max_running_jobs(ctx: ToolContext) -> None:
    table = JobTable()
    for _ in range(MAX_RUNNING):
        start(table, ctx, "sleep 300")
    with pytest.raises(ToolError, match=f"at most {MAX_RUNNING}"):
        start(table, ctx, "sleep 300")
    table.close()


def test_unknown_job_id_names_the_jobs_there_are(ctx: ToolContext) -> None:
    table = JobTable()
    start(table, ctx, "true")
    with pytest.raises(ToolError, match=r"no background job 'job-7' in this session \(jobs: job-1\)"):
        table.get("job-7")
    table.close()


def test_new_output_is_bounded_to_head_and_tail(tmp_path: Path) -> None:
    capture = JobCapture(1000, tmp_path, "bash", default_masker())
    capture.feed(b"".join(b"line %05d\n" % i for i in range(5000)))
    text, size = capture.take_new(1000)
    assert size == 55000 and len(text) <= 1000
    assert text.startswith("line 00000\n") and text.endswith("line 04999\n") and "truncated" in text
    capture.close()
    assert capture.spill_path is not None and Path(capture.spill_path).read_text().count("\n") == 5000


def test_bash_output_masks_and_reports_status(dispatcher: Dispatcher, ctx: ToolContext) -> None:
    secret = "ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8"
    started = call(dispatcher, "bash", command=f"echo token {secret}; exit 4", run_in_background=True)
    assert started.ok and "job-1" in started.content
    table = ctx.extra[JOBS_KEY]
    assert table.get("job-1").done.wait(DEADLINE)
    out = call(dispatcher, "bash_output", job_id="job-1")
    assert out.content == "token [REDACTED]\n[job-1 exited (code 4)]"
    again = call(dispatcher, "bash_output", job_id="job-1")
    assert again.content == "(no new output)\n[job-1 exited (code 4)]"
    assert call(dispatcher, "kill_shell", job_id="job-1").content == "job-1 had already ended: exited (code 4)"
    (line,) = jobs_lines(ctx.extra)
    assert line.startswith("job-1  exited (code 4)") and secret not in line and "[REDACTED]" in line


def test_job_tools_are_deferred_until_a_job_starts(dispatcher: Dispatcher, ctx: ToolContext) -> None:
    assert ctx.registry is not None
    assert not ctx.registry.is_active("bash_output") and not ctx.registry.is_active("kill_shell")
    call(dispatcher, "bash", command="true", run_in_background=True)
    assert ctx.registry.is_active("bash_output") and ctx.registry.is_active("kill_shell")


def test_polls_that_bring_new_output_are_not_refused_as_repeats(dispatcher: Dispatcher, ctx: ToolContext) -> None:
    ledger = CallLedger(ctx.registry)  # type: ignore[arg-type]
    poll = ToolCall("p1", "bash_output", '{"job_id": "job-1"}')
    for i in range(4):
        ledger.record(poll, CallResult("p1", "bash_output", f"line {i}\n[job-1 running]", True))
    assert ledger.runs(poll) == 1
    for _ in range(2):
        ledger.record(poll, CallResult("p1", "bash_output", "(no new output)\n[job-1 running]", True))
    assert ledger.runs(poll) == 2


@pytest.mark.parametrize(("command", "expected"), [
    ("python3 -m http.server 8000", True), ("npm run dev", True), ("pytest --watch", True),
    ("tail -f app.log", True), ("uvicorn app:app --reload", True), ("vite build", False),
    ("sleep 30", False), ("pytest -q", False), ("ls -w", False),
])
def test_server_and_watcher_commands_are_recognised(command: str, expected: bool) -> None:
    assert looks_long_running(command) is expected
