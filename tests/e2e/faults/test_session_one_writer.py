"""One session, one writer: a second ``axon`` resuming a session another live axon is writing gets
one line (``run``) or a copy under a new id (``chat``), never a braided transcript; ``axon undo``
does not revert a live session's turn behind its back."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from axon_cli.session.conversation.transcript import load_transcript
from tests.conftest import axon_command
from tests.fakeserver import Reply, text_reply, tool_reply


def _held(gate: threading.Event, reply: Reply) -> Callable[[dict[str, Any]], Reply]:
    """A reply that is sent only once the test opens the gate: the axon asking for it stays mid-turn."""
    def wait(_body: dict[str, Any]) -> Reply:
        gate.wait(60)
        return reply
    return wait


def _first_session(server, run_axon) -> str:   # type: ignore[no-untyped-def]
    server.add(text_reply("answer one"))
    r = run_axon("run", "first task", "--output-format", "json")
    assert r.code == 0, r.stderr
    return str(json.loads(r.stdout)["session_id"])


def _user_words(path: Path) -> list[str]:
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [m["content"] for m in lines if m.get("role") == "user"]


def _mid_turn(project: Path, axon_env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([*axon_command(), "run", *args], cwd=project, env=axon_env, text=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_a_second_run_resuming_a_live_session_is_refused_and_writes_nothing(server, run_axon, project, axon_env):
    sid = _first_session(server, run_axon)
    path = project / ".axon" / "sessions" / f"{sid}.jsonl"
    (project / "a.txt").write_text("content of a\n")
    gate = threading.Event()
    server.add(tool_reply(("read_file", {"path": "a.txt"}), call_ids=["call_1"]),
               _held(gate, text_reply("second done")))
    first = _mid_turn(project, axon_env, "--yes", "--resume", sid, "second task")
    try:
        server.wait_for_requests(3, timeout=60)          # the first resumer is mid-turn, holding the session
        before = path.read_bytes()
        r = run_axon("run", "--resume", sid, "third task")
        assert r.code == 1
        assert "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and sid in r.stderr and "in use" in r.stderr
        assert len(server.requests) == 3                 # the second one never asked the model
        assert path.read_bytes() == before               # nor wrote a line
        r = run_axon("run", "--continue", "fourth task")   # the latest session is the same one
        assert r.code == 1 and "in use" in r.stderr and path.read_bytes() == before
    finally:
        gate.set()
        out, err = first.communicate(timeout=60)
    assert first.returncode == 0, err
    assert _user_words(path) == ["first task", "second task"]
    loaded = load_transcript(path)
    results = [m["content"] for m in loaded.messages if m["role"] == "tool"]
    assert len(results) == 1 and "content of a" in results[0]       # not "interrupted"

    server.add(text_reply("later"))                      # the holder ended: the session is free again
    r = run_axon("run", "--resume", sid, "fifth task")
    assert r.code == 0, r.stderr
    assert _user_words(path) == ["first task", "second task", "fifth task"]


def test_a_crashed_holder_never_blocks(server, run_axon, project, axon_env):
    import os
    import signal

    sid = _first_session(server, run_axon)
    gate = threading.Event()
    server.add(_held(gate, text_reply("never")))
    first = _mid_turn(project, axon_env, "--resume", sid, "second task")
    try:
        server.wait_for_requests(2, timeout=60)
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
    finally:
        gate.set()
        first.communicate(timeout=30)
    server.add(text_reply("resumed"))
    r = run_axon("run", "--resume", sid, "third task")
    assert r.code == 0, r.stderr
    assert "third task" in _user_words(project / ".axon" / "sessions" / f"{sid}.jsonl")


def test_chat_resuming_a_live_session_continues_in_a_copy(server, run_axon, project, axon_env, chat):
    sid = _first_session(server, run_axon)
    path = project / ".axon" / "sessions" / f"{sid}.jsonl"
    gate = threading.Event()
    server.add(_held(gate, text_reply("second done")))
    first = _mid_turn(project, axon_env, "--resume", sid, "second task")
    try:
        server.wait_for_requests(2, timeout=60)
        c = chat("--resume", sid)
        server.add(text_reply("chat answer"))
        c.say("chat task")
        c.expect("chat answer", timeout=60)
        sent = server.requests[2].conversation
        assert [m["content"] for m in sent if m["role"] == "user"] == ["first task", "second task", "chat task"]
        c.exit()
    finally:
        gate.set()
        first.communicate(timeout=60)
    assert first.returncode == 0
    assert _user_words(path) == ["first task", "second task"]           # the original: only its writer's
    copies = [p for p in path.parent.glob("*.jsonl") if p != path]
    assert len(copies) == 1
    assert _user_words(copies[0]) == ["first task", "second task", "chat task"]
    assert copies[0].stem in c.text() and "copy" in c.text()


def _writing_mid_turn(server, project: Path, axon_env: dict[str, str]):   # type: ignore[no-untyped-def]
    """An axon whose turn has written made.txt and waits for the model (until the gate opens)."""
    gate = threading.Event()
    server.add(tool_reply(("write_file", {"path": "made.txt", "content": "in progress\n"})),
               _held(gate, text_reply("done")))
    live = _mid_turn(project, axon_env, "--yes", "make a file")
    try:
        server.wait_for_requests(2, timeout=60)
    except BaseException:
        gate.set()
        live.kill()
        live.communicate(timeout=30)
        raise
    return gate, live


def test_undo_does_not_revert_a_live_sessions_turn(server, run_axon, project, axon_env):
    gate, live = _writing_mid_turn(server, project, axon_env)
    try:
        assert (project / "made.txt").read_text() == "in progress\n"
        r = run_axon("undo")
        assert r.code == 1 and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and "in use" in r.stderr
        assert (project / "made.txt").read_text() == "in progress\n"     # not reverted under it
    finally:
        gate.set()
        live.communicate(timeout=60)
    assert live.returncode == 0
    r = run_axon("undo")                               # the session ended: its turn undoes now
    assert r.code == 0, r.stderr
    assert not (project / "made.txt").exists()


def test_a_chat_holds_its_session_until_it_ends_also_across_resume(server, run_axon, project, chat):
    server.add(text_reply("hello back"))
    c = chat()
    c.say("hello")
    c.expect("hello back")
    c.prompt()
    [path] = list((project / ".axon" / "sessions").glob("*.jsonl"))
    sid = path.stem
    r = run_axon("run", "--resume", sid, "meanwhile")
    assert r.code == 1 and "in use" in r.stderr and len(server.requests) == 1
    c.say(f"/resume {sid}")                             # the same session again: still held by this chat
    c.expect(f"resumed session {sid}")
    c.prompt()
    r = run_axon("run", "--resume", sid, "meanwhile")
    assert r.code == 1 and "in use" in r.stderr and len(server.requests) == 1
    c.exit()
    server.add(text_reply("after the chat"))
    r = run_axon("run", "--resume", sid, "after")
    assert r.code == 0, r.stderr
    assert _user_words(path) == ["hello", "after"]


def test_slash_undo_in_a_chat_leaves_another_live_sessions_turn_alone(server, project, axon_env, chat):
    gate, live = _writing_mid_turn(server, project, axon_env)
    try:
        c = chat()
        c.say("/undo")
        c.expect("in use")
        c.prompt()
        assert (project / "made.txt").read_text() == "in progress\n"
        c.exit()
    finally:
        gate.set()
        live.communicate(timeout=60)
    assert live.returncode == 0
