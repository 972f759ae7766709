"""End-to-end: the real ``axon run --tool-protocol text|auto`` against the scripted server."""

from __future__ import annotations

import json

from tests.fakeserver import text_reply, tool_reply


def call(tool: str, /, **args: object) -> str:
    return "<tool_call>\n" + json.dumps({"name": tool, "arguments": args}) + "\n</tool_call>"


def events(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_text_protocol_tagged_call_round_trip(server, run_axon, project):
    (project / "VERSION").write_text("1.4.2\n")
    reply = "I will read it.\n" + call("read_file", path="VERSION")
    server.add(text_reply(reply), text_reply("The version is 1.4.2."))
    r = run_axon("run", "what version?", "--tool-protocol", "text", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    first, second = server.requests
    assert "tools" not in first.body and "tool_choice" not in first.body
    assert first.body["stop"] == ["<tool_response"]
    system = first.messages[0]["content"]
    assert "<tool_call>" in system and "<tools>" in system
    tools = system.split("<tools>\n")[1].split("\n</tools>")[0]
    names = [json.loads(line)["name"] for line in tools.splitlines()]   # test-model: the default family
    assert "read_file" in names and "bash" in names
    assistant, results = second.messages[-2:]
    assert assistant == {"role": "assistant", "content": reply}
    assert results["role"] == "user"
    assert results["content"].startswith('<tool_response name="read_file">') and "1.4.2" in results["content"]
    begin = next(e for e in events(r.stdout) if e["type"] == "tool_call_begin")
    assert (begin["call_id"], begin["name"], begin["source"]) == ("text_call_1", "read_file", "text")
    assert events(r.stdout)[-1]["result"] == "The version is 1.4.2."


def test_text_protocol_several_calls_and_fenced_json_in_one_reply(server, run_axon, project):
    reply = (call("write_file", path="a.txt", content="A\n") + "\nand\n"
             + '```json\n{"name": "write_file", "arguments": {"path": "b.txt", "content": "B\\n"}}\n```')
    server.add(text_reply(reply), text_reply("Created both."))
    r = run_axon("run", "create a and b", "--tool-protocol", "text", "--yes")
    assert r.code == 0, r.stderr
    assert (project / "a.txt").read_text() == "A\n" and (project / "b.txt").read_text() == "B\n"
    results = server.requests[1].messages[-1]["content"]
    assert results.count('<tool_response name="write_file">') == 2


def test_malformed_text_calls_are_reported_back_and_nothing_runs(server, run_axon, project):
    reply = ('<tool_call>{"name": "write_file", "arguments": {"path": "x.txt", "content": "x"</tool_call>\n'
             + call("make_coffee", strength=3))
    server.add(text_reply(reply), text_reply(call("write_file", path="x.txt", content="x")), text_reply("ok"))
    r = run_axon("run", "t", "--tool-protocol", "text", "--yes")
    assert r.code == 0, r.stderr
    feedback = server.requests[1].messages[-1]
    assert feedback["role"] == "user"
    assert "not valid JSON" in feedback["content"] and "unknown tool 'make_coffee'" in feedback["content"]
    assert len(server.requests) == 3 and (project / "x.txt").read_text() == "x"


def test_prose_with_code_that_is_not_a_call_is_the_final_answer(server, run_axon, project):
    (project / "f.py").write_text("x = 1\n")
    answer = ("I changed nothing; the file sets x:\n```python\nx = 1\n```\nA config would look like\n"
              '```json\n{"name": "read_file", "arguments": {"path": "f.py"}, "comment": "example"}\n```')
    server.add(text_reply(call("read_file", path="f.py")), text_reply(answer))
    r = run_axon("run", "explain f.py", "--tool-protocol", "text")
    assert r.code == 0, r.stderr
    assert r.stdout == answer + "\n"
    assert len(server.requests) == 2


def test_text_calls_obey_permission_rules(server, run_axon, project):
    (project / ".axon").mkdir()
    (project / ".axon" / "permissions.toml").write_text('deny = ["write_file(locked.txt)"]\n')
    server.add(text_reply(call("write_file", path="locked.txt", content="no")), text_reply("could not"))
    r = run_axon("run", "t", "--tool-protocol", "text", "--yes")
    assert r.code == 0, r.stderr
    assert not (project / "locked.txt").exists()
    assert "Permission denied" in server.requests[1].messages[-1]["content"]


def test_text_call_without_yes_is_denied_like_a_native_one(server, run_axon, project):
    server.add(text_reply(call("bash", command="touch made.txt")), text_reply("denied"))
    r = run_axon("run", "t", "--tool-protocol", "text", "--sandbox", "off")   # unsandboxed: touch asks
    assert r.code == 0, r.stderr
    assert not (project / "made.txt").exists()
    assert "Permission denied" in server.requests[1].messages[-1]["content"]


def test_auto_treats_a_text_call_as_a_call_and_says_so(server, run_axon, project):
    (project / "notes.txt").write_text("hello\n")
    reply = "<tools>" + json.dumps({"name": "read_file", "arguments": {"path": "notes.txt"}}) + "</tools>"
    server.add(text_reply(reply), text_reply("It says hello."))
    r = run_axon("run", "read notes", "--tool-protocol", "auto", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    first, second = server.requests
    assert "read_file" in first.tool_names and first.body["tool_choice"] == "auto"
    assert second.messages[-2] == {"role": "assistant", "content": reply}
    assert second.messages[-1]["role"] == "user" and "hello" in second.messages[-1]["content"]
    evs = events(r.stdout)
    assert any(e["type"] == "notice" and "treated a text tool call as a call" in e["message"] for e in evs)
    assert next(e for e in evs if e["type"] == "tool_call_begin")["source"] == "text"


def test_auto_keeps_native_calls_native_and_ignores_malformed_text(server, run_axon, project):
    (project / "a.txt").write_text("A\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"}), content=call("bash", command="echo no")),
               text_reply('Done. <tool_call>{"name": "bash", "arguments": {oops}</tool_call>'))
    r = run_axon("run", "t", "--tool-protocol", "auto", "--yes")
    assert r.code == 0, r.stderr
    assert server.requests[1].messages[-1]["role"] == "tool"
    assert len(server.requests) == 2 and r.stdout.startswith("Done.")


def test_config_keys_select_protocol_and_profile(server, run_axon, project):
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text('tool_protocol = "text"\nprompt_profile = "compact"\n')
    server.add(text_reply("hi"))
    r = run_axon("run", "t")
    assert r.code == 0, r.stderr
    system = server.requests[0].messages[0]["content"]
    assert "tools" not in server.requests[0].body
    assert '"name":"read_file"' in system and '"name":"write_file"' in system
    assert '"name":"list_files"' not in system and "list_files" in system   # deferred: found with tool_search
