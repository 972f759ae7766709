"""The session's sandboxed commands share one loopback-only network namespace, through the real
``axon run`` under the default sandbox: a server a background job starts answers the model's next
``curl`` and python ``urllib``; the namespace has only ``lo``; it all ends with the session."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tests.e2e.tools.test_background_e2e import free_port, last_tool_text, live_with_env, new_token, port_open
from tests.fakeserver import Reply, text_reply, tool_reply
from tests.sandbox.test_sandbox import needs_namespaces

DEADLINE = 30.0


class ServeThenFetch:
    """The scripted model: start ``http.server`` in the background, poll its output until it serves,
    then fetch its directory listing with ``curl`` and with python ``urllib`` in two more calls."""

    def __init__(self, port: int, token: str) -> None:
        self.port, self.token = port, token
        self.step = "start"
        self.seen: dict[str, Any] = {}
        self.deadline = time.monotonic() + DEADLINE

    def __call__(self, body: dict[str, Any]) -> Reply:
        text = last_tool_text(body)
        url = f"http://127.0.0.1:{self.port}/"
        if self.step == "start":
            self.step = "poll"
            return tool_reply(("bash", {"command": f"export JOBTAG={self.token}; exec python3 -m http.server "
                                                   f"{self.port} --bind 127.0.0.1", "run_in_background": True}))
        if self.step == "poll" and "Serving HTTP" not in text and time.monotonic() < self.deadline:
            return tool_reply(("bash_output", {"job_id": "job-1"}))
        if self.step == "poll":
            self.seen["serving"] = text
            self.seen["pids_running"] = live_with_env(f"JOBTAG={self.token}")
            self.seen["host_reaches_it"] = port_open(self.port)
            self.step = "curl"
            return tool_reply(("bash", {"command": f"curl -sS --max-time 10 {url}"}))
        if self.step == "curl":
            self.seen["curl"] = text
            self.step = "urllib"
            return tool_reply(("bash", {"command": f"python3 -c \"import urllib.request as u; "
                                                   f"print(u.urlopen('{url}', timeout=10).read().decode())\""}))
        self.seen["urllib"] = text
        return text_reply("done")


@needs_namespaces
def test_a_background_server_answers_the_next_sandboxed_commands(server, run_axon, project: Path) -> None:
    (project / "listed-file.txt").write_text("x\n")
    token = new_token()
    driver = ServeThenFetch(free_port(), token)
    server.add(*[driver] * 2000)
    r = run_axon("run", "serve it", "--yes", timeout=120)       # the default sandbox (auto)
    assert r.code == 0, r.stderr
    seen = driver.seen
    assert "Serving HTTP on 127.0.0.1" in seen["serving"], seen
    assert seen["pids_running"], "the server was not running"
    assert seen["host_reaches_it"] is False               # it runs inside the sandbox's namespace …
    assert "Directory listing for /" in seen["curl"] and "listed-file.txt" in seen["curl"], seen["curl"]
    assert "Directory listing for /" in seen["urllib"] and "listed-file.txt" in seen["urllib"], seen["urllib"]
    assert live_with_env(f"JOBTAG={token}") == []          # … and ended with the session


@needs_namespaces
def test_the_shared_namespace_has_only_loopback_and_no_route_out(server, run_axon, project: Path) -> None:
    probe = ("cat /proc/net/dev; python3 -c \"import socket\ntry:\n socket.create_connection(('192.0.2.1', 9),"
             " timeout=5)\n print('CONNECTED')\nexcept OSError as e:\n print('REFUSED', e.errno)\"")
    token = new_token()
    server.add(tool_reply(("bash", {"command": f"export JOBTAG={token}; sleep 300", "run_in_background": True})),
               tool_reply(("bash", {"command": probe})), text_reply("done"))
    r = run_axon("run", "look", "--yes", timeout=120)
    assert r.code == 0, r.stderr
    out = server.requests[2].messages[-1]["content"]
    interfaces = sorted(line.split(":")[0].strip() for line in out.splitlines() if ":" in line and "|" not in line
                        and line.split(":")[0].strip().isidentifier())
    assert interfaces == ["lo"], out
    assert "REFUSED" in out and "CONNECTED" not in out, out
    assert live_with_env(f"JOBTAG={token}") == []
