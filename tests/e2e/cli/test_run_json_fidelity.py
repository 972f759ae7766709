"""``axon run --output-format json`` keeps what a text run tells: every notice a text run prints on
stderr is on stderr and in the result's ``notices``; usage the server did not report is ``null``,
never 0 (and then there is no cost), also when only some requests went unreported; ``/cost`` in chat
says unknown."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakeserver import text_reply, tool_reply

REPORTED = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}


def user_config(project: Path, text: str) -> None:
    config = project.parent / "home" / ".config" / "axon"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(text)


PRICED = '[prices]\n"test-model" = { input = 1.0, output = 2.0 }\n'


def result(stdout: str) -> dict:
    [line] = stdout.splitlines()
    return json.loads(line)


def test_a_stream_without_usage_is_null_and_has_no_cost(server, run_axon, project):
    user_config(project, PRICED)
    server.add(text_reply("hello", no_usage=True))
    r = run_axon("run", "hi", "--output-format", "json")
    assert r.code == 0, r.stderr
    out = result(r.stdout)
    assert out["usage"] is None
    assert out.get("cost_usd") is None
    assert server.requests[0].body["stream_options"] == {"include_usage": True}   # it was asked for


def test_usage_reported_for_some_requests_only_is_null(server, run_axon, project):
    user_config(project, PRICED)
    (project / "a.txt").write_text("alpha\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"}), usage=REPORTED), text_reply("alpha", no_usage=True))
    r = run_axon("run", "read a.txt", "--output-format", "json")
    assert r.code == 0, r.stderr
    out = result(r.stdout)
    assert out["num_turns"] == 2 and out["usage"] is None and out.get("cost_usd") is None


def test_reported_usage_is_the_servers_numbers_and_priced(server, run_axon, project):
    user_config(project, PRICED)
    server.add(text_reply("hello", usage=REPORTED))
    out = result(run_axon("run", "hi", "--output-format", "json").stdout)
    assert out["usage"] == REPORTED
    assert out["cost_usd"] == round((100 * 1.0 + 20 * 2.0) / 1_000_000, 6)
    assert out["notices"] == []


def test_stream_json_usage_event_is_null_when_unreported(server, run_axon):
    server.add(text_reply("hello", no_usage=True))
    r = run_axon("run", "hi", "--output-format", "stream-json")
    [usage] = [e for e in map(json.loads, r.stdout.splitlines()) if e["type"] == "usage"]
    assert (usage["prompt_tokens"], usage["completion_tokens"], usage["total_tokens"]) == (None, None, None)
    assert usage["cost_usd"] is None


def test_every_notice_of_a_text_run_is_in_the_json_and_on_stderr(server, run_axon, project):
    # a user-level MCP server that cannot start, and a project setting that waits for trust
    user_config(project, '[mcp_servers.ghost]\ncommand = "/nonexistent/ghost-mcp"\n')
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text('mode = "auto"\n')
    server.add(text_reply("one"), text_reply("two"))
    text = run_axon("run", "hi")
    assert text.code == 0, text.stderr
    shown = [line.removeprefix("note: ") for line in text.stderr.splitlines() if line.strip()]
    assert any("ghost" in line for line in shown) and len(shown) >= 2, text.stderr
    r = run_axon("run", "hi", "--output-format", "json")
    assert r.code == 0, r.stderr
    out = result(r.stdout)
    assert out["notices"] == shown
    assert [line.removeprefix("note: ") for line in r.stderr.splitlines() if line.strip()] == shown


def test_chat_cost_is_unknown_when_the_server_sent_no_usage(server, chat, project):
    user_config(project, PRICED)
    server.add(text_reply("hello there", no_usage=True))
    c = chat()
    c.say("hi")
    c.expect("hello there")
    c.prompt()
    c.say("/cost")
    after = c.expect("cost: unknown")
    tail = after[after.rfind("/cost"):]
    assert "tokens: unknown" in tail and "$0" not in tail, tail
