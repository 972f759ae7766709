"""The keeper program on its own: the command's exit status passes through, and everything below
it — detached, environment cleared — ends when the pipe it watches closes (axon gone)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from axon_cli.machinery.sandbox.lifetime import keeper_argv
from tests.e2e.faults.lifetime import end_all, live, new_token, spinner, wait_gone, wait_until

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the keeper is Linux only")


def _keep(argv: list[str], **kw) -> tuple[subprocess.Popen[bytes], int]:
    r, w = os.pipe()
    proc = subprocess.Popen(keeper_argv(argv, r), pass_fds=(r,), start_new_session=True, **kw)
    os.close(r)
    return proc, w


@pytest.mark.parametrize(("script", "code"), [("exit 3", 3), ("true", 0), ("kill -TERM $$", -15)])
def test_the_commands_exit_status_is_the_keepers(script, code):
    proc, w = _keep(["sh", "-c", script])
    try:
        assert proc.wait(timeout=20) == code
    finally:
        os.close(w)


def test_a_command_that_cannot_start_is_exit_127_with_one_line():
    proc, w = _keep(["/nonexistent/tool"], stderr=subprocess.PIPE)
    try:
        _out, err = proc.communicate(timeout=20)
    finally:
        os.close(w)
    assert proc.returncode == 127 and err.decode().strip().startswith("axon: cannot run /nonexistent/tool")


def test_when_the_watched_pipe_closes_every_descendant_ends(tmp_path):
    token = new_token()
    ready = tmp_path / "ready"
    proc, w = _keep(["sh", "-c", f"setsid env -i {spinner(token, 'escapee')} & touch {ready}; "
                                 f"{spinner(token, 'main')}"])
    try:
        wait_until(lambda: ready.exists() and len(live(token)) >= 3, "the command and its escapee")
        os.close(w)                    # what axon's exit does, however it exits
        assert proc.wait(timeout=20) != 0
        wait_gone(token)
    finally:
        end_all(token)


def test_after_the_command_exits_what_it_left_behind_ends(tmp_path):
    token = new_token()
    proc, w = _keep(["sh", "-c", f"(setsid env -i {spinner(token, 'daemon')} &) ; exit 0"])
    try:
        assert proc.wait(timeout=20) == 0
        wait_gone(token)
    finally:
        os.close(w)
        end_all(token)
