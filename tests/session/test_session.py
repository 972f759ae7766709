"""Transcripts: the line format, loading (corrupt lines, compaction views, tool pairs), listing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axon_cli.app.reports.sessions import sessions_table
from axon_cli.kernel.errors import UsageError
from axon_cli.session.conversation.transcript import (
    INTERRUPTED_RESULT,
    Transcript,
    latest_session_id,
    list_sessions,
    load_transcript,
    repair_tool_pairs,
    resolve_session_id,
)


def _call(call_id: str, name: str = "read_file", args: str = '{"path": "a"}') -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}


def _write_session(state: Path, sid: str, prompt: str = "fix the bug") -> Transcript:
    t = Transcript(state, sid)
    t.meta("session", id=sid, started="2024-05-01T10:00:00")
    t.append({"role": "system", "content": "sys"})
    t.meta("turn", n=1)
    t.append({"role": "user", "content": prompt})
    t.append({"role": "assistant", "content": None, "tool_calls": [_call("c1")]})
    t.append({"role": "tool", "tool_call_id": "c1", "content": "file text"})
    t.append({"role": "assistant", "content": "done"})
    t.meta("usage", prompt_tokens=100, completion_tokens=20)
    return t


def test_nothing_written_before_the_first_user_message(tmp_path):
    t = Transcript(tmp_path, "s1")
    t.meta("session", id="s1")
    t.append({"role": "system", "content": "sys"})
    assert not t.path.exists()
    t.append({"role": "user", "content": "hi"})
    lines = t.path.read_text().splitlines()
    assert [json.loads(x).get("kind") or json.loads(x)["role"] for x in lines] == ["session", "system", "user"]


def test_round_trip_and_corrupt_last_line_skipped(tmp_path):
    t = _write_session(tmp_path, "s1")
    with open(t.path, "a") as fh:
        fh.write('{"role": "user", "content": "half a li')     # killed mid-write
    loaded = load_transcript(t.path)
    assert [m["role"] for m in loaded.messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert loaded.skipped_lines == 1
    assert loaded.turns == 1 and loaded.prompt_tokens == 100 and loaded.completion_tokens == 20
    assert loaded.first_prompt == "fix the bug"


def test_secrets_masked_and_json_stays_valid(tmp_path):
    t = Transcript(tmp_path, "s1")
    t.append({"role": "user", "content": 'key sk-abcdefghijklmnopqrstuvwxyz123456 and password="hunter2xyz\\"'})
    text = t.path.read_text()
    assert "sk-abcdefghijklmnopqrstuvwxyz123456" not in text and "hunter2xyz" not in text
    assert load_transcript(t.path).messages[0]["content"].startswith("key [REDACTED]")


def test_unanswered_calls_get_interrupted_results_and_strays_dropped():
    msgs = [{"role": "user", "content": "x"},
            {"role": "assistant", "content": None, "tool_calls": [_call("a"), _call("b")]},
            {"role": "tool", "tool_call_id": "a", "content": "ok"},
            {"role": "tool", "tool_call_id": "zzz", "content": "stray"}]
    fixed = repair_tool_pairs(msgs)
    assert [(m["role"], m.get("tool_call_id")) for m in fixed] == [
        ("user", None), ("assistant", None), ("tool", "a"), ("tool", "b")]
    assert fixed[3]["content"] == INTERRUPTED_RESULT


def test_compaction_view_and_system_refresh_applied(tmp_path):
    t = _write_session(tmp_path, "s1")
    summary = {"role": "user", "content": "[Earlier conversation] summary"}
    t.meta("compaction", method="summary", view=[0, summary, 4])
    t.append({"role": "user", "content": "next"})
    t.meta("system", content="new system prompt")
    loaded = load_transcript(t.path)
    assert [m["content"] for m in loaded.messages] == ["new system prompt", summary["content"], "done", "next"]
    assert loaded.message_count == 6     # the full history is still in the file


def test_listing_latest_and_prefix_resolution(tmp_path):
    import os

    _write_session(tmp_path, "20240501-100000-aaaaaa", "first task")
    t2 = _write_session(tmp_path, "20240502-100000-bbbbbb", "second task\nwith two lines")
    os.utime(t2.path, (2_000_000_000, 2_000_000_000))
    Transcript(tmp_path, "20240503-000000-empty0").append({"role": "system", "content": "no prompt yet"})
    infos = list_sessions(tmp_path)
    assert [i.id for i in infos] == ["20240502-100000-bbbbbb", "20240501-100000-aaaaaa"]
    assert infos[0].turns == 1 and infos[0].tokens == 120
    assert latest_session_id(tmp_path) == "20240502-100000-bbbbbb"
    assert resolve_session_id(tmp_path, "20240501") == "20240501-100000-aaaaaa"
    with pytest.raises(UsageError, match="ambiguous"):
        resolve_session_id(tmp_path, "2024050")
    with pytest.raises(UsageError, match="no session 'nope'"):
        resolve_session_id(tmp_path, "nope")
    table = sessions_table(tmp_path).splitlines()
    assert table[0].split() == ["ID", "DATE", "TURNS", "TOKENS", "FIRST", "PROMPT"]
    assert table[1].startswith("20240502-100000-bbbbbb  2024-05-01 10:00") and "second task with two lines" in table[1]
    assert sessions_table(tmp_path / "none") == "no sessions yet in this project"


def test_axon_sessions_command(run_axon, project):
    _write_session(project / ".axon", "20240501-100000-aaaaaa", "list me")
    r = run_axon("sessions")
    assert r.code == 0, r.stderr
    assert "20240501-100000-aaaaaa" in r.stdout and "list me" in r.stdout
