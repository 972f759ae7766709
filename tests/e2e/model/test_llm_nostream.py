"""Servers that cannot stream some requests (llama-cpp-python with tools: HTTP 200, a ping, then
nothing): axon retries once without streaming and keeps doing so for the session."""

from __future__ import annotations

import json

from tests.fakeserver import Reply, error_reply, text_reply, tool_reply

SWITCHED = "using non-streaming requests for this session"


def events(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_an_empty_stream_is_retried_without_streaming_for_the_session(server, run_axon, project):
    (project / "a.txt").write_text("alpha\n")
    server.add(Reply(empty_stream=True),
               tool_reply(("read_file", {"path": "a.txt"}), content="Reading it.",
                          usage={"prompt_tokens": 100, "completion_tokens": 7, "total_tokens": 107},
                          cached_tokens=64),
               text_reply("It says alpha.", usage={"prompt_tokens": 150, "completion_tokens": 5,
                                                  "total_tokens": 155}))
    r = run_axon("run", "what is in a.txt?", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    bodies = [q.body for q in server.requests]
    assert len(bodies) == 3
    assert bodies[0]["stream"] is True and "stream_options" in bodies[0]
    for later in bodies[1:]:
        assert later["stream"] is False and "stream_options" not in later
        assert later["tool_choice"] == "auto" and later["tools"]
    evs = events(r.stdout)
    assert [e["message"] for e in evs if e["type"] == "notice" and SWITCHED in e["message"]] == [
        "the endpoint did not stream this request (the stream ended without any content); " + SWITCHED]
    assert [e["text"] for e in evs if e["type"] == "assistant_delta"] == ["Reading it.", "It says alpha."]
    ends = [e for e in evs if e["type"] == "tool_call_end"]
    assert len(ends) == 1 and ends[0]["ok"] and "alpha" in ends[0]["output"]
    assert server.requests[2].messages[-1]["role"] == "tool"
    usage = [e for e in evs if e["type"] == "usage"]
    assert [u["prompt_tokens"] for u in usage] == [100, 150]
    assert [u["cached_tokens"] for u in usage] == [64, None]      # only when the server says
    assert {u["model"] for u in usage} == {"test-model"}
    assert usage[-1]["session_completion_tokens"] == 12
    assert evs[-1]["result"] == "It says alpha."


def test_an_error_naming_streaming_falls_back(server, run_axon):
    server.add(error_reply(400, "Automatic streaming tool choice is not supported"), text_reply("plain"),
               text_reply("second"))
    r = run_axon("run", "t")
    assert r.code == 0, r.stderr
    assert r.stdout == "plain\n"
    assert [q.body["stream"] for q in server.requests] == [True, False]


def test_text_mode_prints_a_non_streamed_answer_once(server, run_axon):
    server.add(Reply(empty_stream=True), text_reply("the whole answer"))
    r = run_axon("run", "t")
    assert r.code == 0, r.stderr
    assert r.stdout == "the whole answer\n"


def test_an_empty_stream_then_a_failing_plain_request_is_an_error(server, run_axon, project):
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text("max_attempts = 1\n")
    server.add(Reply(empty_stream=True), error_reply(400, "bad request"))
    r = run_axon("run", "t")
    assert r.code == 1
    assert "bad request" in r.stderr and "Traceback" not in r.stderr
    assert len(server.requests) == 2


def test_a_stream_cut_after_content_is_still_retried_streaming(server, run_axon):
    server.add(text_reply("partial answer", cut_after=3), text_reply("whole"))
    r = run_axon("run", "t")
    assert r.code == 0, r.stderr
    assert r.stdout == "whole\n"
    assert [q.body["stream"] for q in server.requests] == [True, True]


def test_a_stream_dropped_before_any_content_falls_back(server, run_axon):
    # llama-cpp-python sometimes resets the connection instead of ending the stream
    server.add(Reply(content="x", cut_after=1), text_reply("plain answer"), text_reply("next"))
    r = run_axon("run", "t", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    assert [q.body["stream"] for q in server.requests] == [True, False]
    evs = events(r.stdout)
    assert evs[-1]["result"] == "plain answer"
    assert any(SWITCHED in e["message"] and "broke off" in e["message"] for e in evs if e["type"] == "notice")


def test_a_server_that_rejects_null_content_gets_empty_strings(server, run_axon, project):
    # llama-cpp-python's server validates an assistant message's content as a string (HTTP 500)
    (project / "a.txt").write_text("a\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"})),
               error_reply(500, "7 validation errors: {'type': 'literal_error', 'loc': ('body', 'messages', 2)"),
               tool_reply(("read_file", {"path": "a.txt"})), text_reply("done"))
    r = run_axon("run", "t", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    calls = [[m for m in q.messages if m["role"] == "assistant"] for q in server.requests[1:]]
    assert calls[0][0]["content"] is None                        # the usual form first
    assert [m["content"] for m in calls[1]] == [""]              # the retry of the same request
    assert [m["content"] for m in calls[2]] == ["", ""]          # and every request after it
    assert any("sending" in e["message"] for e in events(r.stdout) if e["type"] == "notice")
