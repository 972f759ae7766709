"""Quirks of local servers and small models, through the real ``axon run`` and the scripted server:
unsupported parameters, empty replies, calls cut by the length limit, prose instead of calls."""

from __future__ import annotations

import json

from axon_cli.agent.guidance.nudges import EMPTY_NUDGE
from axon_cli.agent.loop.agent import CUT_CALL
from tests.fakeserver import Reply, error_reply, text_reply, tool_reply


def notices(stdout: str) -> list[str]:
    return [e["message"] for e in map(json.loads, stdout.splitlines()) if e["type"] == "notice"]


def test_unsupported_tool_choice_after_500_is_dropped_for_the_session(server, run_axon, project):
    (project / "a.txt").write_text("A\n")
    server.add(error_reply(500, "tool_choice is not supported by this server"),
               tool_reply(("read_file", {"path": "a.txt"})), text_reply("done"))
    r = run_axon("run", "t", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    assert len(server.requests) == 3
    assert server.requests[0].body["tool_choice"] == "auto"
    for later in server.requests[1:]:
        assert "tool_choice" not in later.body and later.tool_names   # tools are still sent
    assert "the endpoint does not support 'tool_choice'; continuing without it" in notices(r.stdout)


def test_500_with_an_empty_body_drops_tool_choice(server, run_axon):
    server.add(Reply(status=500, error_body=""), text_reply("fine"))   # what llama.cpp sent for "required"
    r = run_axon("run", "t")
    assert r.code == 0, r.stderr
    assert r.stdout == "fine\n"
    assert "tool_choice" in server.requests[0].body and "tool_choice" not in server.requests[1].body


def test_unsupported_stream_options_after_400(server, run_axon):
    server.add(error_reply(400, "Unrecognized request argument supplied: stream_options"),
               text_reply("a"), text_reply("unused"))
    r = run_axon("run", "t")
    assert r.code == 0, r.stderr
    assert "stream_options" in server.requests[0].body and "stream_options" not in server.requests[1].body
    assert server.requests[1].body["tool_choice"] == "auto"


def test_a_500_that_names_no_parameter_keeps_them(server, run_axon):
    server.add(error_reply(500, "out of memory", retry_after="0"), text_reply("ok"))
    r = run_axon("run", "t")
    assert r.code == 0, r.stderr
    assert server.requests[1].body["tool_choice"] == "auto"
    assert "stream_options" in server.requests[1].body


def test_empty_reply_is_retried_once_with_a_nudge(server, run_axon):
    server.add(text_reply(""), text_reply("the answer"))
    r = run_axon("run", "t", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    assert server.requests[1].messages[-1] == {"role": "user", "content": EMPTY_NUDGE}
    assert json.loads(r.stdout.splitlines()[-1])["result"] == "the answer"
    assert any("empty reply" in n for n in notices(r.stdout))


def test_two_empty_replies_stop_with_an_error(server, run_axon):
    server.add(text_reply(""), text_reply(""), text_reply("never asked"))
    r = run_axon("run", "t", "--output-format", "json")
    assert r.code == 1
    out = json.loads(r.stdout)
    assert out["is_error"] is True and "empty reply twice" in out["result"]
    assert len(server.requests) == 2


def test_empty_reply_error_in_text_mode_is_one_stderr_line(server, run_axon):
    server.add(text_reply(""), text_reply(""))
    r = run_axon("run", "t")
    assert r.code == 1 and r.stdout == ""
    assert "empty reply twice" in r.stderr and "Traceback" not in r.stderr


def test_native_call_cut_by_length_is_not_run(server, run_axon, project):
    server.add(tool_reply(("write_file", '{"path": "big.py", "content": "import o'), finish_reason="length"),
               text_reply("gave up"))
    r = run_axon("run", "t", "--yes")
    assert r.code == 0, r.stderr
    assert not (project / "big.py").exists()
    tool_msg = server.requests[1].messages[-1]
    assert tool_msg["role"] == "tool" and tool_msg["content"] == CUT_CALL


def test_text_call_cut_by_length_is_not_run(server, run_axon, project):
    cut = 'Writing it.\n<tool_call>{"name": "write_file", "arguments": {"path": "big.py", "content": "import o'
    server.add(text_reply(cut, finish_reason="length"), text_reply("gave up"))
    r = run_axon("run", "t", "--yes", "--tool-protocol", "text")
    assert r.code == 0, r.stderr
    assert not (project / "big.py").exists()
    feedback = server.requests[1].messages[-1]
    assert feedback["role"] == "user" and "output token limit" in feedback["content"]
    assert r.stdout == "gave up\n"


def test_prose_instead_of_a_call_gets_one_reminder(server, run_axon, project):
    prose = "Let me run the tests:\n```bash\npytest -q\n```"
    server.add(text_reply(prose), text_reply(prose), text_reply("unused"))
    r = run_axon("run", "run the tests", "--tool-protocol", "text")
    assert r.code == 0, r.stderr
    assert len(server.requests) == 2
    reminder = server.requests[1].messages[-1]
    assert reminder["role"] == "user" and "<tool_call>" in reminder["content"]
    assert r.stdout == prose + "\n"


def test_reminder_then_a_real_call(server, run_axon, project):
    server.add(text_reply("I'll create the file now."),
               tool_reply(("write_file", {"path": "n.txt", "content": "n\n"})), text_reply("Created n.txt."))
    r = run_axon("run", "create n.txt", "--yes")
    assert r.code == 0, r.stderr
    assert (project / "n.txt").read_text() == "n\n"
    assert "function calling" in server.requests[1].messages[-1]["content"]
    assert r.stdout == "Created n.txt.\n"


def test_a_plain_final_answer_is_not_nagged(server, run_axon):
    server.add(text_reply("The project has no tests yet."), text_reply("unused"))
    r = run_axon("run", "any tests?")
    assert r.code == 0, r.stderr
    assert len(server.requests) == 1
