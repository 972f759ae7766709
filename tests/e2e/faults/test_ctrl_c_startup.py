"""Issue 34 item 2: Ctrl-C at any moment of start-up is one line, never a traceback.

The real ``axon`` is started, and one SIGINT (what Ctrl-C sends) lands at a staggered point of its
start-up — from the moment axon's first line has run (its SIGTERM handler shows in
``/proc/PID/status``; before that only the interpreter and ``site`` run, which print their own
traceback for any program) through imports, settings, the first request and the answer. Whatever the moment: it ends after that one signal (never waits for a second one),
with exit 130 and ``axon: interrupted`` as the last line of stderr, or 0 if it had already answered;
never a ``Traceback``, a ``KeyboardInterrupt`` or a ``PanicException`` (pydantic-core interrupted
inside Rust). ``axon run`` (its fast path and the typer path) and ``axon config`` are covered; and
SIGTERM the same way (``axon: terminated``, 143).
"""

from __future__ import annotations

import io
import signal
import subprocess
import time

import pytest

from tests.conftest import axon_command
from tests.e2e.faults.lifetime import DEADLINE
from tests.fakeserver import text_reply

POINTS = 24                   # staggered moments, 0 to ~0.7 s after axon's first line
STEP = 0.03
COMMANDS = {
    "run": ["run", "hi", "--sandbox", "off"],
    "run-typer": ["run", "--max-turns", "3", "hi", "--sandbox", "off"],
    "config": ["config"],
}


def _catches_sigterm(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as fh:
            caught = next(line for line in fh if line.startswith("SigCgt:"))
    except (OSError, StopIteration):
        return True                    # gone already: nothing left to wait for
    return bool(int(caught.split()[1], 16) & (1 << (signal.SIGTERM - 1)))


def _wait_for_axons_first_line(pid: int) -> None:
    deadline = time.monotonic() + DEADLINE
    while not _catches_sigterm(pid):
        assert time.monotonic() < deadline, "axon never installed its signal handling"
        time.sleep(0.002)


def _interrupt_at(delay: float, args: list[str], project, env, sig: int = signal.SIGINT) -> tuple[int, str]:
    proc = subprocess.Popen([*axon_command(), *args], cwd=project, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_axons_first_line(proc.pid)
        if delay:
            time.sleep(delay)          # the moment of the Ctrl-C (what is tested), not a wait for state
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError(f"one {signal.Signals(sig).name} at {delay:.2f} s did not end axon {' '.join(args)}") from None
    return proc.returncode, err


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_one_ctrl_c_anywhere_in_start_up_is_one_line(server, project, axon_env, name):
    server.add(*[text_reply("hello")] * POINTS)
    bad = []
    for i in range(POINTS):
        code, err = _interrupt_at(i * STEP, COMMANDS[name], project, axon_env)
        lines = err.strip().splitlines()
        broken = any(word in err for word in ("Traceback", "KeyboardInterrupt", "PanicException"))
        if broken or code not in (0, 130) or (code == 130 and lines[-1:] != ["axon: interrupted"]):
            bad.append(f"at {i * STEP:.2f} s: exit {code}, stderr {err[-600:]!r}")
    assert bad == [], "\n".join(bad)


def test_sigterm_anywhere_in_start_up_or_a_turn_is_one_line(server, project, axon_env):
    """``timeout`` and a CI runner's cancel send SIGTERM: one line, 143, never a traceback."""
    server.add(*[text_reply("hello")] * POINTS)
    bad = []
    for i in range(POINTS):
        code, err = _interrupt_at(i * STEP, COMMANDS["run"], project, axon_env, signal.SIGTERM)
        lines = err.strip().splitlines()
        if "Traceback" in err or code not in (0, 143) or (code == 143 and lines[-1:] != ["axon: terminated"]):
            bad.append(f"at {i * STEP:.2f} s: exit {code}, stderr {err[-600:]!r}")
    assert bad == [], "\n".join(bad)


def test_ctrl_c_anywhere_in_chats_start_up_is_one_line_in_a_terminal(project, axon_env):
    """``axon chat`` in a real pty: a Ctrl-C before the prompt ends it with one line (130); one that
    lands at the prompt is the prompt's ("press Ctrl-C again"), and Ctrl-D then leaves. Never a
    traceback, and the terminal is never left without echo."""
    import pexpect

    env = {**axon_env, "TERM": "xterm-256color", "PROMPT_TOOLKIT_NO_CPR": "1"}
    cmd = axon_command()
    bad: list[str] = []
    outcomes: list[int] = []
    for i in range(12):
        child = pexpect.spawn(cmd[0], [*cmd[1:], "chat"], cwd=str(project), env=env, dimensions=(40, 120),
                              encoding="utf-8", codec_errors="replace")
        child.logfile_read = seen = io.StringIO()
        try:
            _wait_for_axons_first_line(child.pid)
            time.sleep(i * 0.06)       # the moment of the Ctrl-C (what is tested), not a wait for state
            child.kill(signal.SIGINT)
            at = child.expect([pexpect.EOF, "press Ctrl-C again"], timeout=DEADLINE)
            if at == 1:
                child.expect("›", timeout=DEADLINE)   # the next prompt is up: Ctrl-D is its (typed between
                child.sendeof()                       # two prompts, the terminal's cooked mode eats it)
                child.expect(pexpect.EOF, timeout=DEADLINE)
            child.close()
            out = seen.getvalue()
            outcomes.append(at)
            if "Traceback" in out or (at == 0 and (child.exitstatus != 130 or "axon: interrupted" not in out)):
                bad.append(f"at {i * 0.06:.2f} s: exit {child.exitstatus}/{child.signalstatus}: {out[-400:]!r}")
        finally:
            if child.isalive():
                child.terminate(force=True)
    assert bad == [], "\n".join(bad)
    assert 0 in outcomes, "no Ctrl-C landed before the prompt: the start-up was not tested"
