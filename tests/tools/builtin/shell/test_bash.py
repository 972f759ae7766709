"""The ``bash`` tool through dispatch: results, exit codes, environment, process control, output bounds."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from axon_cli.machinery.masking import reset_default
from axon_cli.machinery.sandbox import resolve
from axon_cli.machinery.sandbox.child_env import child_env
from axon_cli.settings.config import Settings
from axon_cli.tools.builtin.bash.bash_tool import MAX_RESULT_CHARS, BashInput, bash_spec
from axon_cli.tools.dispatch import CallResult, Dispatcher, ToolCall
from axon_cli.tools.governance import NOTE_MAX
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "proj"
    root.mkdir()
    return ToolContext(project_root=root, state_dir=root / ".axon", session_id="s-bash",
                       settings=Settings(bash_timeout=20, sandbox="off"))  # the unsandboxed bash; test_sandbox.py: inside bwrap


@pytest.fixture
def dispatcher(ctx: ToolContext) -> Dispatcher:
    return Dispatcher(ToolRegistry.with_builtins(resolve("off")), ctx)


def bash(d: Dispatcher, command: str, **kw: object) -> CallResult:
    bash.n += 1  # type: ignore[attr-defined]
    return d.dispatch(ToolCall(f"call_{bash.n}", "bash", json.dumps({"command": command, **kw})))  # type: ignore[attr-defined]


bash.n = 0  # type: ignore[attr-defined]


def alive(pid: int) -> bool:
    """Running (zombies count as dead: a container's init may be slow to reap them)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
            return True
        except ProcessLookupError:
            return False


def wait_dead(pids: list[int], deadline: float = 30.0) -> list[int]:
    end = time.monotonic() + deadline
    while (left := [p for p in pids if alive(p)]) and time.monotonic() < end:
        time.sleep(0.02)
    return left


def pids_in(text: str) -> list[int]:
    return [int(w[4:]) for w in text.split() if w.startswith("pid=")]


def test_output_and_exit_code(dispatcher: Dispatcher) -> None:
    r = bash(dispatcher, "echo hello; exit 3")
    assert r.ok and r.content == "hello\nexit code 3"
    assert r.display["exit_code"] == 3 and r.display["timed_out"] is False


def test_no_output_and_summary(dispatcher: Dispatcher, ctx: ToolContext) -> None:
    events: list[object] = []
    d = Dispatcher(ToolRegistry.with_builtins(resolve("off")), ctx, emit=events.append)
    r = bash(d, "true")
    assert r.content == "(no output)\nexit code 0"
    end = [e for e in events if getattr(e, "type", "") == "tool_call_end"][0]
    assert end.summary.startswith("exit 0 in ") and end.summary.endswith(" s")  # type: ignore[attr-defined]


def test_stdout_and_stderr_merged_in_order(dispatcher: Dispatcher) -> None:
    r = bash(dispatcher, "echo one; echo two >&2; echo three; echo four >&2")
    assert r.content == "one\ntwo\nthree\nfour\nexit code 0"


def test_runs_in_project_root(dispatcher: Dispatcher, ctx: ToolContext) -> None:
    r = bash(dispatcher, "pwd")
    assert r.content.splitlines()[0] == str(ctx.project_root)


def test_stdin_is_closed(dispatcher: Dispatcher) -> None:
    r = bash(dispatcher, "cat; read x || echo eof", timeout=30)
    assert r.content == "eof\nexit code 0"


def test_environment_is_noninteractive_and_has_no_secrets(dispatcher: Dispatcher,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-abcdefghijklmnopqrstuv")
    monkeypatch.setenv("ANTHROPIC_AUTH_HEADER", "x-secret-value-123")
    monkeypatch.setenv("MY_DB_PASSWORD", "hunter2hunter2")
    monkeypatch.setenv("AXON_PLAIN_SETTING", "visible")
    r = bash(dispatcher, "env")
    env = dict(line.split("=", 1) for line in r.content.splitlines()[:-1] if "=" in line)
    assert "OPENAI_API_KEY" not in env and "ANTHROPIC_AUTH_HEADER" not in env and "MY_DB_PASSWORD" not in env
    assert env["AXON_PLAIN_SETTING"] == "visible"
    for key, value in {"CI": "1", "GIT_TERMINAL_PROMPT": "0", "PAGER": "cat", "GIT_PAGER": "cat",
                       "TERM": "dumb", "NO_COLOR": "1", "DEBIAN_FRONTEND": "noninteractive",
                       "PYTHONUNBUFFERED": "1"}.items():
        assert env[key] == value


def test_command_env_keeps_ssh_agent_and_path() -> None:
    env = child_env({"PATH": "/bin", "SSH_AUTH_SOCK": "/tmp/agent", "GITHUB_TOKEN": "ghp_x", "AWS_SECRET_X": "y"})
    assert env["PATH"] == "/bin" and env["SSH_AUTH_SOCK"] == "/tmp/agent"
    assert "GITHUB_TOKEN" not in env and "AWS_SECRET_X" not in env


def test_secrets_in_output_are_masked_including_env_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "svc-0123456789abcdef")
    reset_default()
    try:
        root = tmp_path / "p"
        root.mkdir()
        (root / "leak.txt").write_text("token svc-0123456789abcdef\nDB_PASSWORD=hunter22x\n")
        c = ToolContext(project_root=root, state_dir=root / ".axon", session_id="s", settings=Settings(sandbox="off"))
        r = bash(Dispatcher(ToolRegistry.with_builtins(resolve("off")), c), "cat leak.txt")
        assert r.content == "token [REDACTED]\nDB_PASSWORD=[REDACTED]\nexit code 0"
    finally:
        reset_default()


@pytest.mark.slow
def test_timeout_kills_the_whole_group(dispatcher: Dispatcher) -> None:
    r = bash(dispatcher, "sleep 100 & echo pid=$!; sleep 100 & echo pid=$!; wait", timeout=3)
    pids = pids_in(r.content)
    assert len(pids) == 2
    assert not r.ok and r.content.endswith("timed out after 3 s, process group killed")
    assert r.display["timed_out"] is True
    assert wait_dead(pids) == []


@pytest.mark.slow
def test_timeout_also_kills_a_process_ignoring_sigterm(dispatcher: Dispatcher) -> None:
    r = bash(dispatcher, "trap '' TERM; sleep 100 & echo pid=$!; echo pid=$$; wait", timeout=3)
    pids = pids_in(r.content)
    assert len(pids) == 2 and "timed out after 3 s" in r.content
    assert wait_dead(pids) == []


def test_background_children_do_not_outlive_the_call(dispatcher: Dispatcher) -> None:
    r = bash(dispatcher, "sleep 100 >/dev/null 2>&1 & echo pid=$!; sleep 100 & echo pid=$!")
    pids = pids_in(r.content)
    assert len(pids) == 2 and r.content.endswith("exit code 0")
    assert wait_dead(pids) == []


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="the escapee sweep needs /proc")
def test_setsid_escapee_is_killed(dispatcher: Dispatcher) -> None:
    r = bash(dispatcher, "setsid sleep 100 >/dev/null 2>&1 & echo pid=$!")
    pids = pids_in(r.content)
    assert len(pids) == 1
    assert wait_dead(pids) == []


def test_cancel_kills_the_group_and_interrupts(dispatcher: Dispatcher, ctx: ToolContext, tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    box: dict[str, CallResult] = {}
    worker = threading.Thread(target=lambda: box.update(r=bash(
        dispatcher, f"sleep 100 & echo $! > {pidfile}.tmp; echo $$ >> {pidfile}.tmp; mv {pidfile}.tmp {pidfile}; wait",
        timeout=60)))
    worker.start()
    end = time.monotonic() + 30
    while not pidfile.exists() and time.monotonic() < end:
        time.sleep(0.02)
    pids = [int(x) for x in pidfile.read_text().split()]
    ctx.cancel.set()
    worker.join(30)
    assert not worker.is_alive()
    assert box["r"].content == "Error: interrupted by user" and not box["r"].ok
    assert wait_dead(pids) == []


def test_huge_output_is_spilled_and_bounded(dispatcher: Dispatcher, ctx: ToolContext) -> None:
    r = bash(dispatcher, "for i in $(seq 1 200000); do echo line $i; done; echo DB_PASSWORD=hunter22x; "
                         "echo last line; exit 7")
    assert r.truncated and r.spill_path is not None
    assert len(r.content) <= MAX_RESULT_CHARS + NOTE_MAX
    assert r.content.startswith("line 1\nline 2\n")
    body, note = r.content.rsplit("\n[full output", 1)
    assert body.endswith("DB_PASSWORD=[REDACTED]\nlast line\nexit code 7")
    assert len(body) <= MAX_RESULT_CHARS
    assert "chars truncated …]" in body and "read_file(" in note
    full = Path(r.spill_path).read_text()
    assert full.startswith("line 1\n") and full.endswith("DB_PASSWORD=[REDACTED]\nlast line\n")
    assert full.count("\n") == 200002 and "hunter22x" not in full
    assert Path(r.spill_path).parent == ctx.state_dir / "tool-results"
    assert len(list((ctx.state_dir / "tool-results").iterdir())) == 1   # spilled once, not twice


def test_output_just_within_budget_is_whole_and_not_spilled(dispatcher: Dispatcher, ctx: ToolContext) -> None:
    r = bash(dispatcher, "head -c 20000 /dev/zero | tr '\\0' x")
    assert not r.truncated and r.spill_path is None and r.content == "x" * 20000 + "\nexit code 0"
    assert not (ctx.state_dir / "tool-results").exists()


def test_invalid_timeout_is_a_validation_error(dispatcher: Dispatcher) -> None:
    r = bash(dispatcher, "true", timeout=601)
    assert not r.ok and "timeout" in r.content and "validation error" in r.content


def test_spec_facts_and_summary() -> None:
    spec = bash_spec(resolve("off"))
    assert spec.category == "shell" and spec.timeout is None
    assert spec.describe_call(BashInput(command="pytest -q", timeout=300)) == "pytest -q (timeout 300 s)"
    assert spec.describe_call(BashInput(command="a\nb\nc")) == "a …(+2 lines)"
    assert spec.is_read_only(BashInput(command="ls")) is True
    assert spec.concurrency_safe(BashInput(command="ls")) is True
    assert spec.is_read_only(BashInput(command="rm -rf x")) is False
    assert spec.is_destructive(BashInput(command="rm -rf x")) is True
    assert spec.concurrency_safe(BashInput(command="rm -rf x")) is False


def test_a_command_failing_on_a_missing_path_shows_what_the_directory_holds(dispatcher, ctx):
    fixtures = ctx.project_root / "fixtures"
    fixtures.mkdir()
    for name in ("alpha.json", "bravo.json", ".hidden"):
        (fixtures / name).write_text("{}\n")
    r = bash(dispatcher, "rm fixtures/OBSOLETE")
    assert r.content.endswith("exit code 1\n[fixtures/OBSOLETE does not exist; fixtures/ holds: alpha.json, "
                              "bravo.json]")
    assert bash(dispatcher, "cat nowhere/x.txt").content.endswith(
        "[nowhere/x.txt does not exist; the project root holds: fixtures/]")
    assert "does not exist;" not in bash(dispatcher, "cat /nonexistent/x.txt").content   # outside: not looked at
    assert "does not exist;" not in bash(dispatcher, "ls fixtures; echo 'x: No such file or directory'").content


def test_a_path_that_starts_with_the_project_dirs_own_name_is_pointed_at_the_real_one(dispatcher, ctx):
    (ctx.project_root / "app.ini").write_text("workers=64\n")
    r = bash(dispatcher, f"sed -i s/64/8/ {ctx.project_root.name}/app.ini")
    assert r.content.endswith(f"[{ctx.project_root.name}/app.ini does not exist: commands run in the project "
                              f"root ({ctx.project_root.name}) itself, so the path is app.ini]")


def test_a_bash_built_without_the_sessions_sandbox_runs_nothing(ctx: ToolContext) -> None:
    canary = ctx.project_root / "ran"
    r = bash(Dispatcher(ToolRegistry.with_builtins(), ctx), f"touch {canary}")   # no SandboxStatus given
    assert not r.ok and "built without the session's sandbox status" in r.content
    assert not canary.exists()
