"""Background jobs through the real ``axon run``: ``bash`` with ``run_in_background``, ``bash_output``
and ``kill_shell``, checked against the process table and the port the job served on."""

from __future__ import annotations

import itertools
import json
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from tests.conftest import axon_command
from tests.e2e.faults.lifetime import live_where
from tests.fakeserver import Reply, text_reply, tool_reply

DEADLINE = 20.0
_COUNTER = itertools.count()


def new_token() -> str:
    """A value to find a job's processes by (plain enough that masking leaves it alone)."""
    return f"job{os.getpid()}x{next(_COUNTER)}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def live_with_env(needle: str) -> list[int]:
    """Live (non-zombie) pids whose environment holds ``needle`` (``NAME=value``)."""
    return sorted(live_where("environ", lambda environ: needle.encode() in environ.split(b"\0")))


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


def last_tool_text(body: dict[str, Any]) -> str:
    """The last tool result (a local endpoint may get the tools the call activated described after it)."""
    tools = [m for m in body["messages"] if m.get("role") == "tool"]
    return str(tools[-1].get("content")) if tools else ""


def wait_until(check: Any, what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class HttpServerDriver:
    """The scripted model: start ``http.server`` in the background, poll it until it serves, fetch a
    page from it with another bash call, kill the job, and record what the process table said."""

    def __init__(self, port: int, token: str) -> None:
        self.port, self.token = port, token
        self.step = "start"
        self.seen: dict[str, Any] = {"polls": 0}
        self.deadline = time.monotonic() + DEADLINE

    def __call__(self, body: dict[str, Any]) -> Reply:
        text = last_tool_text(body)
        if self.step == "start":
            self.step = "poll"
            return tool_reply(("bash", {"command": f"export JOBTAG={self.token}; python3 -m http.server "
                                                   f"{self.port} --bind 127.0.0.1", "run_in_background": True}))
        if self.step == "poll":
            self.seen.setdefault("started", text)
            if "Serving HTTP" not in text and time.monotonic() < self.deadline:
                self.seen["polls"] += 1
                return tool_reply(("bash_output", {"job_id": "job-1"}))
            self.seen["serving"] = text
            self.seen["pids_running"] = live_with_env(f"JOBTAG={self.token}")
            self.step = "fetch"
            return tool_reply(("bash", {"command": f"python3 -c \"import urllib.request as u; "
                                                   f"print(u.urlopen('http://127.0.0.1:{self.port}/page.txt')"
                                                   f".read().decode())\""}))
        if self.step == "fetch":
            self.seen["fetched"] = text
            self.step = "kill"
            return tool_reply(("kill_shell", {"job_id": "job-1"}))
        if self.step == "kill":
            self.seen["killed"] = text
            self.seen["pids_after_kill"] = live_with_env(f"JOBTAG={self.token}")
            self.seen["port_after_kill"] = port_open(self.port)
            self.step = "status"
            return tool_reply(("bash_output", {"job_id": "job-1"}))
        self.seen["final_status"] = text
        return text_reply("done")


def test_http_server_in_the_background_is_polled_fetched_and_killed(server, run_axon, project: Path) -> None:
    (project / "page.txt").write_text("hello from the job\n")
    driver = HttpServerDriver(free_port(), new_token())
    server.add(*[driver] * 2000)
    r = run_axon("run", "serve it", "--yes", "--sandbox", "off", timeout=90)
    assert r.code == 0, r.stderr
    seen = driver.seen
    assert "Started in the background as job job-1" in seen["started"]
    assert "Serving HTTP on 127.0.0.1 port" in seen["serving"] and "[job-1 running]" in seen["serving"]
    assert seen["pids_running"], "the server was not found in the process table while it ran"
    assert "hello from the job" in seen["fetched"] and "exit code 0" in seen["fetched"]
    assert '"GET /page.txt HTTP/1.1" 200' not in seen["fetched"]
    assert "job-1 stopped" in seen["killed"]
    assert seen["pids_after_kill"] == [] and seen["port_after_kill"] is False
    assert '"GET /page.txt HTTP/1.1" 200' in seen["final_status"]   # the new output, read after the kill
    assert "[job-1 killed]" in seen["final_status"]
    assert not {"bash_output", "kill_shell"} & set(server.requests[0].tool_names)
    # activated by the start: a local endpoint keeps the tools it was sent first (its prefix cache)
    # and gets the two described after the result that activated them
    assert server.requests[1].tool_names == server.requests[0].tool_names
    described = json.dumps(server.requests[1].messages[-1])
    assert "bash_output" in described and "kill_shell" in described


def stubborn_job(token: str) -> str:
    """A job whose shell and child both ignore SIGTERM (only SIGKILL ends them)."""
    return f"export JOBTAG={token}; trap '' TERM; (trap '' TERM; sleep 300) & sleep 300"


def test_a_job_still_running_when_axon_run_ends_is_killed(server, run_axon, project: Path) -> None:
    for sandbox in ("off", "auto"):
        token = new_token()
        seen: dict[str, Any] = {}

        def after_start(body: dict[str, Any], token: str = token, seen: dict[str, Any] = seen) -> Reply:
            seen["started"] = last_tool_text(body)
            wait_until(lambda: len(live_with_env(f"JOBTAG={token}")) >= 2, "the job's processes")
            seen["running"] = live_with_env(f"JOBTAG={token}")
            return text_reply("left it running")

        server.add(tool_reply(("bash", {"command": stubborn_job(token), "run_in_background": True})), after_start)
        r = run_axon("run", "start it", "--yes", "--sandbox", sandbox)
        assert r.code == 0, r.stderr
        assert r.stdout == "left it running\n"
        assert "job-1" in seen["started"] and len(seen["running"]) >= 2
        assert live_with_env(f"JOBTAG={token}") == [], f"a job process outlived axon run (sandbox {sandbox})"


def test_ctrl_c_during_a_run_leaves_no_job_behind(server, axon_env: dict[str, str], project: Path) -> None:
    token = new_token()
    started = threading.Event()

    def after_start(body: dict[str, Any]) -> Reply:
        started.set()
        return tool_reply(("bash", {"command": f"export FGTAG={token}; sleep 60"}))

    server.add(tool_reply(("bash", {"command": stubborn_job(token), "run_in_background": True})), after_start)
    proc = subprocess.Popen([*axon_command(), "run", "go", "--yes", "--sandbox", "off"], cwd=project,
                            env=axon_env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert started.wait(DEADLINE)
        wait_until(lambda: len(live_with_env(f"JOBTAG={token}")) >= 2, "the job's processes")
        server.wait_for_requests(2)
        wait_until(lambda: len(live_with_env(f"FGTAG={token}")) >= 1, "the foreground command")
        proc.send_signal(signal.SIGINT)              # Ctrl-C while a foreground call runs beside the job
        proc.communicate(timeout=3 * DEADLINE)       # generous: ending the job may wait out its grace
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert live_with_env(f"JOBTAG={token}") == [] and live_with_env(f"FGTAG={token}") == []


def test_default_mode_refuses_a_destructive_background_command(server, run_axon, project: Path) -> None:
    (project / "keep.txt").write_text("precious\n")
    server.add(tool_reply(("bash", {"command": "rm -f keep.txt", "run_in_background": True})), text_reply("ok"))
    r = run_axon("run", "clean", "--sandbox", "off")
    assert r.code == 0, r.stderr
    answer = server.requests[1].messages[-1]["content"]
    assert "Permission denied" in answer and "job-" not in answer
    assert (project / "keep.txt").read_text() == "precious\n"


def test_a_foreground_server_that_times_out_is_told_to_use_the_background(server, run_axon) -> None:
    port = free_port()
    server.add(tool_reply(("bash", {"command": f"python3 -m http.server {port} --bind 127.0.0.1", "timeout": 1})),
               tool_reply(("bash", {"command": "sleep 5", "timeout": 1})), text_reply("ok"))
    r = run_axon("run", "serve", "--yes", "--sandbox", "off")
    assert r.code == 0, r.stderr
    served = server.requests[1].messages[-1]["content"]
    assert "timed out after 1 s" in served and "run_in_background=true" in served
    slept = server.requests[2].messages[-1]["content"]
    assert "timed out after 1 s" in slept and "run_in_background" not in slept
    assert not port_open(port)
