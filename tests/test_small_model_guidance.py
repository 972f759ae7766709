"""Guidance that small models need (seen with Qwen2.5-Coder-1.5B): a worked example in the text
protocol's prompt, a reminder that writes out the call the model meant, a loop guard that sees
through calls in between, and an edit_file error that says what new_string must be."""

from __future__ import annotations

import json

import pytest

from axon_cli.config import Settings
from axon_cli.nudges import NATIVE_HINT, TEXT_HINT, Nudger
from axon_cli.protocol import TextProtocol, apply_profile
from axon_cli.textcalls import parse_text_calls
from axon_cli.tools.registry import ToolRegistry
from tests.fakeserver import text_reply, tool_reply


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry.with_builtins()


def test_text_prompt_has_a_worked_read_then_edit_example(registry):
    block = TextProtocol(registry).system_block(registry)
    example = block[block.index("Example."):block.index("Available tools")]
    calls = parse_text_calls(example, registry).calls
    assert [name for name, _ in calls] == ["read_file", "edit_file"]
    edit = calls[1][1]
    assert edit["old_string"] != edit["new_string"] and edit["path"] == calls[0][1]["path"]
    assert "Do not describe a call instead of making it" in block


def test_no_worked_example_without_the_tools_it_uses(registry):
    registry.demote(["edit_file"])
    block = TextProtocol(registry).system_block(registry)
    assert "Example." not in block and "<tool_call>" in block


def test_compact_text_prompt_keeps_the_example(registry):
    apply_profile(registry, Settings(prompt_profile="compact"))
    assert "Example." in TextProtocol(registry, detailed=False).system_block(registry)


def test_reminder_writes_out_the_shown_command_as_a_text_call(registry):
    n = Nudger(TEXT_HINT, tools_active=True, registry=registry)
    reminder = n.check("```bash\n$ python3 -m unittest -q\n```\n\nThe output will show the result.")
    assert reminder is not None and reminder.startswith("Now do it:")
    assert parse_text_calls(reminder, registry).calls == [("bash", {"command": "python3 -m unittest -q"})]


def test_reminder_gives_a_skeleton_of_the_named_tool(registry):
    n = Nudger(TEXT_HINT, tools_active=True, registry=registry)
    reminder = n.check("To fix it, open calc.py with the `edit_file` tool:\n```python\nreturn a + b\n```")
    assert reminder is not None
    assert parse_text_calls(reminder, registry).calls == [
        ("edit_file", {"path": "...", "old_string": "...", "new_string": "..."})]


def test_native_reminder_names_the_call_in_words(registry):
    n = Nudger(NATIVE_HINT, tools_active=True, registry=registry)
    reminder = n.check("Let me run it:\n```sh\nmake test\n```")
    assert reminder is not None and "function calling" in reminder
    assert 'call bash with {"command": "make test"}' in reminder and "<tool_call>" not in reminder


def test_reminder_without_a_recognisable_call_has_no_example(registry):
    reminder = Nudger(TEXT_HINT, tools_active=True, registry=registry).check("I'll check it now.")
    assert reminder is not None and "For example" not in reminder


IDENTICAL = {"path": "notes.md", "old_string": "receive", "new_string": "receive"}


def test_an_alternating_search_and_failing_edit_is_stopped(server, run_axon, project):
    (project / "notes.md").write_text("We recieve data.\n")
    search = ("search_files", {"pattern": "receive", "path": "notes.md"})
    for _ in range(4):
        server.add(tool_reply(search), tool_reply(("edit_file", IDENTICAL)))
    server.add(text_reply("stopped"))
    r = run_axon("run", "fix the typo", "--yes", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    edits = [e for e in map(json.loads, r.stdout.splitlines())
             if e["type"] == "tool_call_end" and e["name"] == "edit_file"]
    assert [("looping" in e["output"]) for e in edits] == [False, False, False, True]
    first = edits[0]["output"]
    assert "identical" in first and "new_string the corrected text" in first
    assert (project / "notes.md").read_text() == "We recieve data.\n"


def test_a_call_failing_again_after_a_command_ran_is_still_run(server, run_axon, project):
    (project / "a.txt").write_text("a\n")
    failing = ("edit_file", {"path": "a.txt", "old_string": "zzz", "new_string": "y"})
    for _ in range(4):
        server.add(tool_reply(failing), tool_reply(("bash", {"command": "true"})))
    server.add(text_reply("ok"))
    r = run_axon("run", "t", "--yes", "--max-turns", "9", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    edits = [e for e in map(json.loads, r.stdout.splitlines())
             if e["type"] == "tool_call_end" and e["name"] == "edit_file"]
    assert len(edits) == 4 and all(not e["ok"] for e in edits)
    assert not any("looping" in e["output"] for e in edits)
