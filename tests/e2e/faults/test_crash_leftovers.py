"""Crash leftovers are swept: an axon SIGKILLed in the middle of a large ``write_file`` leaves its
temp file (``.NAME.axon-tmp-PID-XXXXXXXX``) beside the target; the next axon to start removes it —
only that, never a user's look-alike file or a live writer's. A transcript line torn by a crash is
dropped on load with a notice, and the next line starts on a line of its own."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from axon_cli.session.conversation.transcript import load_transcript
from tests.conftest import axon_command
from tests.fakeserver import text_reply, tool_reply

BIG = 12 * 1024 * 1024


def _temp_files(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if ".axon-tmp-" in n or n.endswith(".tmp"))


def _killed_mid_write(server, project: Path, axon_env: dict[str, str]) -> list[str]:   # type: ignore[no-untyped-def]
    """Start a large write_file and SIGKILL axon as soon as its temp file appears; the names left.
    The kill can land after the rename on a busy machine: then it is tried again."""
    for _ in range(6):
        server.add(tool_reply(("write_file", {"path": "big.txt", "content": "x" * BIG}), chunk_size=1 << 20),
                   text_reply("done"))
        proc = subprocess.Popen([*axon_command(), "run", "--yes", "write big.txt"], cwd=project, env=axon_env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        try:
            while proc.poll() is None and time.monotonic() < deadline:
                if any(".big.txt.axon-tmp-" in n or n.startswith(".big.txt.") for n in os.listdir(project)):
                    os.kill(proc.pid, signal.SIGKILL)
                    break
        finally:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        left = [n for n in os.listdir(project) if n.startswith(".big.txt.")]
        server.script.clear()
        if left:
            return left
        (project / "big.txt").unlink(missing_ok=True)
    raise AssertionError("the kill never landed during the write")


def test_a_temp_file_of_a_killed_write_is_swept_at_the_next_start(server, run_axon, project, axon_env):
    left = _killed_mid_write(server, project, axon_env)
    assert len(left) == 1 and ".axon-tmp-" in left[0]           # recognisably axon's
    decoys = {".big.txt.ab12cd.tmp": "a user's file\n",          # the old form: could be anyone's
              f".big.txt.axon-tmp-{os.getpid()}-abcdefgh": "a live writer's temp file\n",
              "notes.axon-tmp-1-abcdefgh": "a user's file\n"}
    for name, text in decoys.items():
        (project / name).write_text(text)

    server.add(text_reply("hello"))
    r = run_axon("run", "hi")
    assert r.code == 0, r.stderr
    assert not (project / left[0]).exists()
    for name, text in decoys.items():
        assert (project / name).read_text() == text
    assert "Traceback" not in r.stderr


def test_a_torn_last_transcript_line_is_dropped_and_the_next_line_stands_alone(server, run_axon, project):
    server.add(text_reply("answer one"))
    r = run_axon("run", "first task", "--output-format", "json")
    assert r.code == 0, r.stderr
    sid = json.loads(r.stdout)["session_id"]
    path = project / ".axon" / "sessions" / f"{sid}.jsonl"
    with open(path, "ab") as fh:                               # a crash in the middle of a line
        fh.write(b'{"role": "assistant", "content": "half a li')

    server.add(text_reply("answer two"))
    r = run_axon("run", "--resume", sid, "second task")
    assert r.code == 0, r.stderr
    assert "Traceback" not in r.stderr and "cut off" in r.stderr
    sent = server.requests[1].conversation
    assert [m["content"] for m in sent[1:]] == ["first task", "answer one", "second task"]
    loaded = load_transcript(path)
    assert [m["content"] for m in loaded.messages if m["role"] != "system"] == [
        "first task", "answer one", "second task", "answer two"]
    assert not loaded.torn_tail and loaded.skipped_lines == 1
