"""``--debug`` explains a run: per request the protocol, message count, approximate tokens and the
tools sent; the model's raw reply (masked, capped); and which rule recognised each text call or
produced each corrective error. Through the real ``axon run`` against the scripted server."""

from __future__ import annotations

import json
import re

from tests.fakeserver import text_reply, tool_reply

SECRET = "ghp_" + "a1" * 18


def debug_log(project) -> str:
    return (project / ".axon" / "debug.log").read_text()


def test_text_protocol_requests_replies_and_rules_are_logged(server, run_axon, project):
    (project / "VERSION").write_text("3.1.4\n")
    reply = f"My token is {SECRET}.\n<tool_call>\n" + json.dumps(
        {"name": "read_file", "arguments": {"path": "VERSION"}}) + "\n</tool_call>"
    server.add(text_reply(reply), text_reply('{"name": "x.cfg", "arguments": {"path": "x.cfg"}}'),
               text_reply("It is 3.1.4."))
    r = run_axon("run", "which version?", "--tool-protocol", "text", "--debug")
    assert r.code == 0, r.stderr
    log = debug_log(project)
    requests = re.findall(r"request: protocol text, (\d+) messages, ~(\d+) tokens; tools in the system prompt: (.*)",
                          log)
    assert [int(n) for n, _t, _names in requests] == [2, 4, 6]
    assert all(int(t) > 100 for _n, t, _names in requests)
    assert requests[0][2].startswith("read_file, write_file")
    assert "tool protocol text, profile default, model test-model: text prompt family default" in log
    assert "--- raw reply ---\nMy token is [REDACTED]." in log and SECRET not in log
    assert "text call read_file recognised by rule [<tool_call> block]" in log
    assert ("text call error by rule [whole reply is call JSON (bare JSON, one object): Error: unknown tool 'x.cfg']: "
            "Error: unknown tool 'x.cfg'; nothing was run. Your arguments fit read_file") in log
    assert "It is 3.1.4." in log


def test_native_protocol_logs_the_tools_field_and_native_calls(server, run_axon, project):
    (project / "a.txt").write_text("A\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"})), text_reply("done"))
    r = run_axon("run", "read a", "--debug", "--tool-protocol", "native")   # auto is the default now
    assert r.code == 0, r.stderr
    log = debug_log(project)
    assert "request: protocol native, 2 messages, ~" in log
    assert "local endpoint http://127.0.0.1" in log and "temperature=0.2, max_tokens=1024" in log
    assert "tools field: read_file, write_file, edit_file" in log
    assert 'native calls: read_file({"path": "a.txt"})' in log
    assert "finish_reason tool_calls" in log and "finish_reason stop" in log


def test_a_long_reply_is_capped_and_prose_json_is_explained(server, run_axon, project):
    long = 'Example: {"name": "bash", "arguments": {"command": "ls"}} ' + "x" * 6000
    server.add(text_reply(long))
    r = run_axon("run", "explain", "--tool-protocol", "auto", "--debug")
    assert r.code == 0, r.stderr
    log = debug_log(project)
    assert "more characters]" in log and "x" * 6000 not in log and "x" * 3000 in log
    assert "no text call recognised" in log


def test_without_debug_there_is_no_log(server, run_axon, project):
    server.add(text_reply("hi"))
    r = run_axon("run", "hi")
    assert r.code == 0, r.stderr
    assert not (project / ".axon" / "debug.log").exists()
