"""End-to-end: the real ``axon run`` against the scripted server."""

from __future__ import annotations

import json

from tests.fakeserver import error_reply, text_reply, tool_reply


def test_text_answer_on_stdout(server, run_axon):
    server.add(text_reply("Hello from the model."))
    r = run_axon("run", "say hello")
    assert r.code == 0, r.stderr
    assert r.stdout == "Hello from the model.\n"
    req = server.requests[0]
    assert req.body["stream"] is True
    assert req.body["stream_options"] == {"include_usage": True}
    assert req.body["model"] == "test-model"
    assert req.messages[0]["role"] == "system"
    assert req.conversation[-1] == {"role": "user", "content": "say hello"}
    assert req.messages[-1]["content"].startswith("<context>\nThe project is at ")


def test_json_output_is_one_object(server, run_axon):
    server.add(text_reply("42"))
    r = run_axon("run", "answer", "--output-format", "json")
    assert r.code == 0, r.stderr
    obj = json.loads(r.stdout)
    assert set(obj) == {"result", "is_error", "num_turns", "session_id", "usage", "duration_ms", "notices"}
    assert obj["result"] == "42" and obj["is_error"] is False and obj["num_turns"] == 1
    assert obj["usage"]["total_tokens"] == obj["usage"]["prompt_tokens"] + obj["usage"]["completion_tokens"] > 0


def test_unknown_tool_goes_back_to_model(server, run_axon):
    server.add(tool_reply(("no_such_tool", {"x": 1})), text_reply("ok"))
    r = run_axon("run", "t", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    tool_msg = server.requests[1].messages[-1]
    assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == "call_1_0"
    assert "unknown tool 'no_such_tool'" in tool_msg["content"]
    types = [json.loads(line)["type"] for line in r.stdout.splitlines()]
    assert types[0] == "session_started" and types[-1] == "turn_complete"
    assert "tool_call_begin" in types and "tool_call_end" in types


def test_retry_after_then_success(server, run_axon):
    server.add(error_reply(429, "slow down", retry_after="0"), error_reply(503, "busy", retry_after="0"),
               text_reply("made it"))
    r = run_axon("run", "x")
    assert r.code == 0, r.stderr
    assert r.stdout == "made it\n"
    assert len(server.requests) == 3


def test_gives_up_after_max_attempts_with_one_line(server, run_axon):
    server.add(*[error_reply(500, "boom", retry_after="0") for _ in range(6)])
    r = run_axon("run", "x")
    assert r.code == 1
    assert len(server.requests) == 5
    assert "Traceback" not in r.stderr
    assert "failed after 5 attempts" in r.stderr


def test_cut_stream_retried_whole(server, run_axon):
    server.add(text_reply("partial answer that breaks", cut_after=3), text_reply("whole answer"))
    r = run_axon("run", "x")
    assert r.code == 0, r.stderr
    assert r.stdout == "whole answer\n"
    assert len(server.requests) == 2
