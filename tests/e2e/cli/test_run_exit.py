"""``axon run`` leaves without interpreter teardown (``kernel/process_exit.py``): everything it writes is
complete when the process is gone — stdout through a pipe (larger than the pipe's buffer), the
transcript, the audit log and the debug log — and the exit code is the run's."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakeserver import error_reply, text_reply, tool_reply

BIG = "".join(f"line {i:06d} of a long answer\n" for i in range(40_000)).rstrip("\n")   # ~1 MB


def _transcript(project: Path) -> list[dict[str, object]]:
    files = list((project / ".axon" / "sessions").glob("*.jsonl"))
    assert len(files) == 1
    return [json.loads(line) for line in files[0].read_text().splitlines()]


def test_json_output_transcript_and_logs_are_complete(server, run_axon, project: Path) -> None:
    (project / "a.txt").write_text("hello\n")
    server.add(error_reply(503, "busy", retry_after="0"), tool_reply(("read_file", {"path": "a.txt"})), text_reply(BIG, chunk_size=4096))
    r = run_axon("run", "read a.txt", "--output-format", "json", "--debug")
    assert r.code == 0, r.stderr
    obj = json.loads(r.stdout)
    assert obj["result"] == BIG and obj["num_turns"] == 2
    messages = [m for m in _transcript(project) if m.get("role")]
    assert messages[-1]["role"] == "assistant" and messages[-1]["content"] == BIG
    assert any(m["role"] == "tool" for m in messages)
    audit = (project / ".axon" / "audit.jsonl").read_text().splitlines()
    assert len(audit) == 1 and json.loads(audit[0])["tool"] == "read_file"
    log = (project / ".axon" / "debug.log").read_text()
    assert "retrying in" in log and log.endswith("\n")


def test_text_output_is_complete_and_the_exit_code_kept(server, run_axon) -> None:
    server.add(text_reply(BIG, chunk_size=4096))
    r = run_axon("run", "x")
    assert r.code == 0, r.stderr
    assert r.stdout == BIG + "\n"
    server.add(tool_reply(("read_file", {"path": "a.txt"})), tool_reply(("read_file", {"path": "a.txt"})))
    r = run_axon("run", "x", "--max-turns", "1")
    assert r.code == 3 and r.stderr.endswith("axon: stopped: reached the limit of 1 turns\n")


def test_gc_pause_and_resume() -> None:
    import gc

    from axon_cli.agent.model import gcpause

    assert gc.isenabled()
    gcpause.pause()
    try:
        assert not gc.isenabled()
    finally:
        gcpause.resume()
    assert gc.isenabled() and gc.get_freeze_count() > 0
    gc.unfreeze()
    gc.disable()                      # paused by someone else: left as it is
    try:
        gcpause.pause()
        gcpause.resume()
        assert not gc.isenabled()
    finally:
        gc.enable()
