"""End-to-end: calls written as text in the shapes small models use, through the real ``axon run``
against the scripted server, in every protocol; and prose with JSON that must stay an answer."""

from __future__ import annotations

import json

from tests.fakeserver import text_reply


def events(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_native_reply_of_exactly_one_call_object_runs_through_dispatch_and_audit(server, run_axon, project):
    (project / "VERSION").write_text("2.7.1\n")
    server.add(text_reply(json.dumps({"name": "read_file", "arguments": {"path": "VERSION"}})),
               text_reply("It is 2.7.1."))
    r = run_axon("run", "which version?", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    first, second = server.requests
    assert "read_file" in first.tool_names   # native: the tools field is sent
    result = second.messages[-1]
    assert result["role"] == "user" and result["content"].startswith('<tool_response name="read_file">')
    assert "2.7.1" in result["content"]
    evs = events(r.stdout)
    begin = next(e for e in evs if e["type"] == "tool_call_begin")
    assert (begin["name"], begin["source"]) == ("read_file", "text")
    assert any(e["type"] == "notice" and "treated a text tool call" in e["message"] for e in evs)
    audit = [json.loads(line) for line in (project / ".axon" / "audit.jsonl").read_text().splitlines()]
    assert any(a.get("tool") == "read_file" for a in audit), audit
    assert evs[-1]["result"] == "It is 2.7.1."


def test_a_text_call_result_in_the_default_protocol_says_what_to_do_next(server, run_axon, project):
    """Without the hint a 1.5B model answered a bash result with call after call (read the script,
    read it again…) instead of reporting the number it had just seen; with it, it answers."""
    from axon_cli.agent.protocols.builtin import NEXT_STEP, REPEATED
    from tests.fakeserver import tool_reply

    (project / "VERSION").write_text("2.7.1\n")
    call = '```json\n{"name": "read_file", "arguments": {"path": "VERSION"}}\n```'
    server.add(text_reply(call), text_reply(call), tool_reply(("read_file", {"path": "VERSION"})),
               text_reply("It is 2.7.1."))
    r = run_axon("run", "which version?")      # no config: the default protocol, auto
    assert r.code == 0, r.stderr
    first, again, native = (q.messages[-1]["content"] for q in server.requests[1:])
    assert first.startswith('<tool_response name="read_file">') and first.endswith("</tool_response>\n" + NEXT_STEP)
    assert REPEATED.format(s="", it="it") in again and again.endswith(NEXT_STEP)
    assert server.requests[3].messages[-1]["role"] == "tool" and NEXT_STEP not in native   # native stays plain


def test_a_file_name_used_as_the_tool_name_gets_a_correction_and_nothing_runs(server, run_axon, project):
    (project / "x.cfg").write_text("k = 1\n")
    server.add(text_reply('```json\n{"name": "x.cfg", "arguments": {"path": "x.cfg"}}\n```'),
               text_reply(json.dumps({"name": "read_file", "arguments": {"path": "x.cfg"}})),
               text_reply("k is 1."))
    r = run_axon("run", "what is in x.cfg?", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    feedback = server.requests[1].messages[-1]
    assert feedback["role"] == "user" and "unknown tool 'x.cfg'" in feedback["content"]
    assert "fit read_file" in feedback["content"]
    begins = [e for e in events(r.stdout) if e["type"] == "tool_call_begin"]
    assert [b["name"] for b in begins] == ["read_file"]   # only the corrected call ran
    assert "k = 1" in server.requests[2].messages[-1]["content"]


def test_prose_showing_a_call_as_json_is_the_answer_in_native(server, run_axon, project):
    answer = ('A tool call is an object like {"name": "bash", "arguments": {"command": "rm -rf build"}}; '
              "the agent validates it first.")
    server.add(text_reply(answer))
    r = run_axon("run", "how are tool calls shaped?", "--yes")
    assert r.code == 0, r.stderr
    assert r.stdout == answer + "\n" and len(server.requests) == 1


def test_text_protocol_several_bare_objects_and_an_unclosed_tag(server, run_axon, project):
    objects = (json.dumps({"name": "write_file", "arguments": {"path": "a.txt", "content": "A\n"}}) + "\n"
               + json.dumps({"name": "write_file", "arguments": {"path": "b.txt", "content": "B\n"}}))
    unclosed = 'Now the last one.\n<tool_call>\n{"name": "write_file", "arguments": {"path": "c.txt", "content": "C\\n"}}'
    server.add(text_reply(objects), text_reply(unclosed), text_reply("Created three files."))
    r = run_axon("run", "create a, b and c", "--tool-protocol", "text", "--yes")
    assert r.code == 0, r.stderr
    assert [(project / f).read_text() for f in ("a.txt", "b.txt", "c.txt")] == ["A\n", "B\n", "C\n"]
    assert server.requests[1].messages[-1]["content"].count('<tool_response name="write_file">') == 2


def test_a_call_shaped_reply_obeys_permission_rules(server, run_axon, project):
    (project / ".axon").mkdir()
    (project / ".axon" / "permissions.toml").write_text('deny = ["write_file(locked.txt)"]\n')
    server.add(text_reply(json.dumps({"name": "write_file", "arguments": {"path": "locked.txt", "content": "x"}})),
               text_reply("could not"))
    r = run_axon("run", "t", "--tool-protocol", "auto", "--yes")
    assert r.code == 0, r.stderr
    assert not (project / "locked.txt").exists()
    assert "Permission denied" in server.requests[1].messages[-1]["content"]


def test_no_config_a_call_then_an_imagined_result_runs_the_call_and_the_answer_comes_from_the_file(
        server, run_axon, project):
    """What the 1.5B model wrote with no config at all: the call, then what it imagines it shows."""
    (project / "service.ini").write_text("timeout_ms = 7341\n")
    call = json.dumps({"name": "read_file", "arguments": {"path": "service.ini"}}, indent=2)
    server.add(text_reply(f"```json\n{call}\n```\n\nThe output will be:\n\n```ini\ntimeout_ms = 5000\n```"),
               text_reply("timeout_ms is 7341."))
    r = run_axon("run", "What is timeout_ms set to in service.ini?", "--output-format", "json")
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout)["result"] == "timeout_ms is 7341."
    history = server.requests[1].messages
    assert "7341" in history[-1]["content"]                              # the real file, read
    assert not any("5000" in str(m.get("content")) for m in history)    # the imagined result is gone
