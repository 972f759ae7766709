"""Issue 34, item 6: a text tool call is shown as the same one call line as a native call — its JSON
body is not echoed above it — in ``axon chat`` (a real pty) and in ``axon run`` (text and stream-json
output); the prose around the call is kept, and JSON that is not a call (an example) is still shown.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakeserver import text_reply

BODY = json.dumps({"name": "read_file", "arguments": {"path": "VERSION"}})
FENCED = json.dumps({"name": "list_files", "arguments": {"path": "."}})
REPLY = f"I will read it.\n<tool_call>\n{BODY}\n</tool_call>\nand list:\n```json\n{FENCED}\n```\nThen I answer."
EXAMPLE = '```json\n{"name": "read_file", "arguments": {"path": "f.py"}, "comment": "example"}\n```'


def _script(server, project: Path) -> None:
    (project / "VERSION").write_text("1.4.2\n")
    server.add(text_reply(REPLY, chunk_delay=0.002), text_reply("The version is 1.4.2. A call looks like\n" + EXAMPLE))


def _no_body(text: str) -> None:
    assert '"arguments": {"path": "VERSION"}' not in text and "<tool_call>" not in text, text[-3000:]
    assert '"arguments": {"path": "."}' not in text, text[-3000:]


def test_run_shows_the_call_line_not_the_body(server, run_axon, project: Path) -> None:
    _script(server, project)
    r = run_axon("run", "what version?", "--tool-protocol", "text")
    assert r.code == 0, r.stderr
    _no_body(r.stdout + r.stderr)
    assert "read_file(VERSION)" in r.stderr and "list_files(.)" in r.stderr
    assert '"comment": "example"' in r.stdout          # JSON that is not a call stays in the answer


def test_stream_json_deltas_carry_the_prose_without_the_body(server, run_axon, project: Path) -> None:
    _script(server, project)
    r = run_axon("run", "what version?", "--tool-protocol", "text", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines()]
    streamed = "".join(e["text"] for e in events if e["type"] == "assistant_delta")
    _no_body(streamed)
    assert "I will read it." in streamed and "and list:" in streamed and "Then I answer." in streamed
    assert '"comment": "example"' in streamed
    assert [e["name"] for e in events if e["type"] == "tool_call_begin"] == ["read_file", "list_files"]


def test_chat_screen_shows_the_call_line_not_the_body(chat, server, project: Path) -> None:
    _script(server, project)
    c = chat("--tool-protocol", "text")
    c.say("what version?")
    c.expect("The version is 1.4.2.")
    c.prompt()
    shown = "\n".join(c.screen())
    _no_body(c.text())
    assert "I will read it." in shown and "Then I answer." in shown
    assert "read_file(VERSION)" in shown and "list_files(.)" in shown
    c.exit()
