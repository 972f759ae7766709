"""End to end: transcripts written by the real ``axon run``, resumed with --continue / --resume,
also after the process was SIGKILLed in the middle of a turn."""

from __future__ import annotations

import json
import os
import signal
import subprocess

from axon_cli.kernel.events import AutoApprover
from axon_cli.session.conversation.transcript import load_transcript
from axon_cli.session.runtime.opening import open_session
from axon_cli.settings.config import load_settings
from tests.conftest import TEST_KEY, axon_command
from tests.fakeserver import text_reply, tool_reply


def test_continue_sends_the_previous_messages(server, run_axon, project):
    server.add(text_reply("answer one"), text_reply("answer two"), text_reply("answer three"))
    r1 = run_axon("run", "first task", "--output-format", "json")
    assert r1.code == 0, r1.stderr
    sid = json.loads(r1.stdout)["session_id"]
    assert (project / ".axon" / "sessions" / f"{sid}.jsonl").is_file()
    r2 = run_axon("run", "--continue", "second task", "--output-format", "json")
    assert r2.code == 0, r2.stderr
    assert json.loads(r2.stdout)["session_id"] == sid
    sent = server.requests[1].conversation
    assert sent[0]["role"] == "system"
    assert sent[1:] == [{"role": "user", "content": "first task"}, {"role": "assistant", "content": "answer one"},
                        {"role": "user", "content": "second task"}]
    r3 = run_axon("run", "--resume", sid[:-3], "third")
    assert r3.code == 0, r3.stderr
    assert [m["content"] for m in server.requests[2].conversation[1:]] == [
        "first task", "answer one", "second task", "answer two", "third"]
    listing = run_axon("sessions")
    assert sid in listing.stdout and "first task" in listing.stdout


def test_unknown_session_is_a_usage_error(server, run_axon):
    r = run_axon("run", "--resume", "nosuch", "x")
    assert r.code == 2
    assert r.stderr.strip() == "axon: error: no session 'nosuch' in this project (see `axon sessions`)"
    r = run_axon("run", "--continue", "x")
    assert r.code == 2 and "no earlier session" in r.stderr
    assert server.requests == []


def test_killed_mid_turn_resumes_with_every_complete_message(server, project, axon_env, run_axon, monkeypatch):
    server.add(tool_reply(("write_file", {"path": "made.txt", "content": "made by axon\n"})),
               text_reply("this reply never arrives", hang=30))
    proc = subprocess.Popen([*axon_command(), "run", "--yes", "make a file"], cwd=project, env=axon_env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        server.wait_for_requests(2, timeout=60)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    assert (project / "made.txt").read_text() == "made by axon\n"
    in_flight = server.requests[1].conversation        # everything complete when it was killed
    assert [m["role"] for m in in_flight] == ["system", "user", "assistant", "tool"]

    server.add(text_reply("resumed fine"))
    r = run_axon("run", "--continue", "go on", "--output-format", "json")
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout)["result"] == "resumed fine"
    resent = server.requests[2].conversation
    assert resent[1:] == [*in_flight[1:], {"role": "user", "content": "go on"}]

    # the killed turn's snapshot still undoes: the file axon created goes away
    monkeypatch.chdir(project)
    monkeypatch.setenv("XDG_CONFIG_HOME", axon_env["XDG_CONFIG_HOME"])
    monkeypatch.setenv("XDG_STATE_HOME", str(project.parent / "home" / ".local" / "state"))   # axon run's default
    loaded = load_settings(project, flags={"base_url": server.url, "api_key": TEST_KEY}, env={})
    rt = open_session(loaded, project, AutoApprover(), cont=True)
    try:
        assert rt.undo() == ["undo of turn 1:", "  deleted made.txt (created in that turn)"]
    finally:
        rt.close()
    assert not (project / "made.txt").exists()


def test_corrupt_last_line_is_skipped_on_resume(server, run_axon, project):
    server.add(text_reply("one"), text_reply("two"))
    r = run_axon("run", "task", "--output-format", "json")
    path = project / ".axon" / "sessions" / f"{json.loads(r.stdout)['session_id']}.jsonl"
    with open(path, "a") as fh:
        fh.write('{"role": "assistant", "content": "cut o')
    assert load_transcript(path).skipped_lines == 1
    r = run_axon("run", "--continue", "again")
    assert r.code == 0, r.stderr
    assert [m["content"] for m in server.requests[1].conversation[1:]] == ["task", "one", "again"]


def test_json_output_has_cost_when_the_model_is_priced(server, run_axon, project):
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text('[prices.test-model]\ninput = 3.0\noutput = 15.0\n')
    server.add(text_reply("priced", usage={"prompt_tokens": 1000, "completion_tokens": 200, "total_tokens": 1200}))
    r = run_axon("run", "x", "--output-format", "json")
    assert r.code == 0, r.stderr
    obj = json.loads(r.stdout)
    assert obj["cost_usd"] == round((1000 * 3.0 + 200 * 15.0) / 1e6, 6)
    assert {"result", "is_error", "num_turns", "session_id", "usage", "duration_ms"} <= set(obj)
