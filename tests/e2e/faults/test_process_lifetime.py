"""Issue 34 item 2 / issue 32 item 8: every process axon starts ends when axon ends, however it ends.

Through the real ``axon run`` with a scripted model, sandbox on (``auto``: bubblewrap) and off: the
commands write a marker file once their processes run, the test waits for it (never a sleep), then
ends axon with SIGINT, SIGTERM or SIGKILL, and checks the process table: no process whose command
line carries the run's token may be alive (polled, 20 s deadline). Each command also starts a
``setsid env -i`` escapee (its own session, no environment marker), the case only a subreaper,
pid namespace or cgroup can follow.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import axon_command
from tests.e2e.faults.lifetime import (
    DEADLINE,
    end_all,
    files,
    live,
    new_token,
    spinner,
    wait_gone,
    wait_until,
)
from tests.fakeserver import Reply, text_reply, tool_reply

SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGKILL]
SANDBOXES = ["off", "auto"]


@contextlib.contextmanager
def _axon(project: Path, env: dict[str, str], sandbox: str, token: str) -> Iterator[subprocess.Popen[str]]:
    """``axon run`` in the background; afterwards (pass or fail) nothing of it is left running."""
    proc = subprocess.Popen([*axon_command(), "run", "go", "--yes", "--sandbox", sandbox], cwd=project, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        end_all(token)


def _running(token: str, *names: str) -> bool:
    lines = [c.strip() for c in live(token).values()]
    return all(any(c.endswith(f"{token}-{n}") for c in lines) for n in names)


def _end(proc: subprocess.Popen[str], sig: int) -> str:
    proc.send_signal(sig)
    try:
        _out, err = proc.communicate(timeout=DEADLINE * 2)
    except subprocess.TimeoutExpired:
        proc.kill()
        _out, err = proc.communicate()
        raise AssertionError(f"axon did not end after {signal.Signals(sig).name}") from None
    return err


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_killed_while_a_command_and_a_job_run_leaves_nothing(server, axon_env, project, sig, sandbox):
    token = new_token()
    job = (f"setsid env -i {spinner(token, 'job-escapee')} & {spinner(token, 'job')} & "
           f"touch .ready-job; wait")
    foreground = f"setsid env -i {spinner(token, 'fg-escapee')} & touch .ready-fg; {spinner(token, 'fg')}"

    def after_job(_body: dict[str, Any]) -> Reply:
        return tool_reply(("bash", {"command": foreground, "timeout": 300}))

    server.add(tool_reply(("bash", {"command": job, "run_in_background": True})), after_job, text_reply("done"))
    with _axon(project, axon_env, sandbox, token) as proc:
        wait_until(lambda: (project / ".ready-job").exists() and (project / ".ready-fg").exists(),
                   "both commands to start")
        wait_until(lambda: _running(token, "job-escapee", "job", "fg-escapee", "fg"), "the spinners")
        err = _end(proc, sig)
        wait_gone(token)
    assert "Traceback" not in err


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=lambda s: signal.Signals(s).name)
def test_killed_just_as_eight_commands_start_leaves_nothing(server, axon_env, project, sig, sandbox):
    token = new_token()
    served = threading.Event()
    calls = [("bash", {"command": f"setsid env -i {spinner(token, f'e{i}')} & touch .started-{i}; "
                                  f"{spinner(token, f'j{i}')}", "run_in_background": True}) for i in range(8)]

    def eight(_body: dict[str, Any]) -> Reply:
        served.set()
        return tool_reply(*calls)

    server.add(eight, text_reply("done"))
    with _axon(project, axon_env, sandbox, token) as proc:
        assert served.wait(DEADLINE), "axon never asked the model"
        wait_until(lambda: files(project, ".started-*"), "the first command to start")
        _end(proc, sig)
        wait_gone(token)
