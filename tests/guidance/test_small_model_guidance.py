"""Guidance that small models need (seen with Qwen2.5-Coder-1.5B): the tool wording the model was
trained on, a reminder that writes out the call the model meant, a loop guard that sees through
calls in between, and an edit_file error that says what new_string must be."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axon_cli.agent.guidance.nudges import NATIVE_HINT, TEXT_HINT, Nudger
from axon_cli.agent.model.llm import AssistantTurn
from axon_cli.agent.protocols.builtin import (
    ALREADY_DONE,
    FIX_STEP,
    NEXT_STEP,
    SAVED,
    AutoProtocol,
    TextProtocol,
)
from axon_cli.agent.protocols.textcalls import parse_text_calls
from axon_cli.settings.config import Settings
from axon_cli.tools.dispatch import CallResult
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext
from tests.fakeserver import text_reply, tool_reply


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry.with_builtins()


@pytest.fixture
def tool_ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "proj"
    root.mkdir()
    return ToolContext(project_root=root, state_dir=root / ".axon", session_id="s", settings=Settings())


def test_text_prompt_uses_the_qwen_tool_wording(registry):
    block = TextProtocol(registry, family="qwen").system_block(registry)
    tools = [json.loads(line) for line in block[block.index("<tools>\n") + 8:block.index("\n</tools>")].splitlines()]
    assert tools[0]["type"] == "function" and tools[0]["function"]["name"] == "read_file"
    assert tools[0]["function"]["parameters"]["required"] == ["path"]
    assert ('return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n'
            '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>') in block
    assert "<tool_response" not in block   # naming it made a 1.5B model write invented results first
    # the format line is not itself a call; the one example is generic (placeholders)
    assert parse_text_calls(block, registry).calls == [("read_file", {"path": "<path>"})]


def test_reminder_writes_out_the_shown_command_as_a_text_call(registry):
    n = Nudger(TEXT_HINT, tools_active=True, registry=registry)
    reminder = n.check("```bash\n$ python3 -m unittest -q\n```\n\nThe output will show the result.")
    assert reminder is not None and reminder.startswith("Now do it:")
    assert parse_text_calls(reminder, registry).calls == [("bash", {"command": "python3 -m unittest -q"})]
    assert "reply with only this call" in reminder


def test_reminder_unwraps_a_pseudo_bash_call_in_a_shell_block(registry):
    # seen from Qwen2.5-Coder-1.5B: it "calls" the tool inside a ```bash block
    n = Nudger(TEXT_HINT, tools_active=True, registry=registry)
    reminder = n.check('You can use this:\n```bash\nbash "python3 -m unittest -q"\n```') or ""
    assert parse_text_calls(reminder, registry).calls == [("bash", {"command": "python3 -m unittest -q"})]


def test_reminder_gives_a_skeleton_of_the_named_tool(registry):
    n = Nudger(TEXT_HINT, tools_active=True, registry=registry)
    reminder = n.check("To fix it, open calc.py with the `edit_file` tool:\n```python\nreturn a + b\n```")
    assert reminder is not None
    assert parse_text_calls(reminder, registry).calls == [
        ("edit_file", {"path": "...", "old_string": "...", "new_string": "..."})]


def test_reminder_reads_a_named_project_file_not_read_yet(registry, tool_ctx):
    (tool_ctx.project_root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    n = Nudger(TEXT_HINT, tools_active=True, registry=registry, ctx=tool_ctx)
    prose = "To fix the function in `calc.py`, change it to:\n```python\nreturn a + b\n```\nSee also notes.txt."
    reminder = n.check(prose)
    assert reminder is not None
    assert parse_text_calls(reminder, registry).calls == [("read_file", {"path": "calc.py"})]
    path = tool_ctx.project_root / "calc.py"
    tool_ctx.file_state.record(path, path.stat().st_mtime_ns, path.stat().st_size, "")
    again = Nudger(TEXT_HINT, tools_active=True, registry=registry, ctx=tool_ctx)
    edit = again.check("I'll use edit_file on calc.py:\n```python\nreturn a + b\n```")
    assert parse_text_calls(edit or "", registry).calls == [
        ("edit_file", {"path": "calc.py", "old_string": "...", "new_string": "..."})]


def test_reminder_ignores_files_outside_the_project(registry, tool_ctx):
    n = Nudger(TEXT_HINT, tools_active=True, registry=registry, ctx=tool_ctx)
    reminder = n.check("I'll read /etc/hostname.txt and ../x.py now.")
    assert reminder is not None and "For example" not in reminder


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


def test_text_results_end_with_the_next_step_and_point_out_a_repeat(registry):
    proto = TextProtocol(registry)
    proto.system_block(registry)
    read = '```json\n{"name": "read_file", "arguments": {"path": "VERSION"}}\n```'
    first = proto.extract_calls(AssistantTurn(content=read), registry)
    content = proto.result_messages(first, [CallResult("text_call_1", "read_file", "1\t2.7.1", True)])[0]["content"]
    assert content.startswith('<tool_response name="read_file">\n1\t2.7.1\n</tool_response>')
    assert content.endswith(NEXT_STEP) and "same call" not in content
    again = proto.extract_calls(AssistantTurn(content=read), registry)
    content = proto.result_messages(again, [CallResult("text_call_2", "read_file", "1\t2.7.1", True)])[0]["content"]
    assert "You made the same call as in your previous reply. Do not repeat it" in content
    other = proto.extract_calls(AssistantTurn(content=read.replace("VERSION", "README")), registry)
    content = proto.result_messages(other, [CallResult("text_call_3", "read_file", "x", True)])[0]["content"]
    assert "same call" not in content


def test_a_successful_edit_says_it_is_saved(registry):
    proto = TextProtocol(registry)
    edit = '<tool_call>{"name": "edit_file", "arguments": {"path": "a", "old_string": "x", "new_string": "y"}}</tool_call>'
    turn = proto.extract_calls(AssistantTurn(content=edit), registry)
    diff = "--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y"
    content = proto.result_messages(turn, [CallResult("text_call_1", "edit_file", diff, True)])[0]["content"]
    assert content.startswith(f'<tool_response name="edit_file">\n{SAVED}\n{diff}\n</tool_response>')
    failed = proto.result_messages(turn, [CallResult("text_call_1", "edit_file", "Error: no", False)])[0]["content"]
    assert SAVED not in failed
    read = proto.result_messages(turn, [CallResult("text_call_1", "read_file", "--- a", True)])[0]["content"]
    assert SAVED not in read


def test_an_edit_repeated_right_after_it_succeeded_is_not_run_again(server, run_axon, project):
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    fenced = ('```json\n{"name": "edit_file", "arguments": {"path": "calc.py", "old_string": "- b", '
              '"new_string": "+ b"}}\n```')
    server.add(text_reply('```json\n{"name": "read_file", "arguments": {"path": "calc.py"}}\n```'),
               text_reply(fenced), text_reply(fenced), text_reply("Fixed."))
    r = run_axon("run", "fix add", "--yes", "--tool-protocol", "text", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    after_edit = server.requests[2].messages[-1]["content"]
    assert after_edit.startswith('<tool_response name="edit_file">\n' + SAVED) and after_edit.endswith(NEXT_STEP)
    repeat = server.requests[3].messages[-1]["content"]
    assert ALREADY_DONE.format(name="edit_file") in repeat and "old_string not found" not in repeat
    ends = [e for e in map(json.loads, r.stdout.splitlines()) if e["type"] == "tool_call_end"]
    assert [e["name"] for e in ends] == ["read_file", "edit_file"]
    assert json.loads(r.stdout.splitlines()[-1])["result"] == "Fixed."


def test_native_answer_with_code_is_final_not_nagged(server, run_axon):
    # A capable tool-calling model that answers with a snippet or a command for the user is done.
    answer = "Install it with:\n\n```bash\npip install requests\n```\n\nThen `import requests`."
    server.add(text_reply(answer))
    r = run_axon("run", "how do I install requests?")
    assert r.code == 0, r.stderr
    assert len(server.requests) == 1
    assert "pip install requests" in r.stdout


def test_after_a_failed_text_call_the_model_is_told_to_fix_it_not_to_answer(registry):
    """A 1.5B model read "If these results complete the task, answer…" after "read it first" and
    answered "you need to read the file first" instead of reading it."""
    proto = AutoProtocol()
    edit = '```json\n{"name": "edit_file", "arguments": {"path": "a.cfg", "old_string": "1", "new_string": "2"}}\n```'
    turn = proto.extract_calls(AssistantTurn(content=edit), registry)
    failed = CallResult(turn.tool_calls[0].id, "edit_file", "Error: a.cfg has not been read: read it first", False)
    content = proto.result_messages(turn, [failed])[0]["content"]
    assert content.endswith(FIX_STEP) and NEXT_STEP not in content
    turn = proto.extract_calls(AssistantTurn(content=edit.replace("edit_file", "read_file")), registry)
    done = CallResult(turn.tool_calls[0].id, "read_file", "1\tport = 1", True)
    assert proto.result_messages(turn, [done])[0]["content"].endswith(NEXT_STEP)


def test_an_insertion_sent_again_later_in_the_turn_is_not_made_twice(registry):
    """A 1.5B model added a requirement line, was told it was saved, and sent the same insertion
    again two steps later: the line ended up in the file twice."""
    proto = AutoProtocol()
    insert = ('```json\n{"name": "edit_file", "arguments": {"path": "requirements.txt", "old_string": "a==1", '
              '"new_string": "a==1\\nb==2"}}\n```')
    read = '```json\n{"name": "read_file", "arguments": {"path": "requirements.txt"}}\n```'

    def step(content: str, ok: bool = True) -> AssistantTurn:
        turn = proto.extract_calls(AssistantTurn(content=content), registry)
        proto.result_messages(turn, [CallResult(c.id, c.name, "--- diff", ok) for c in turn.tool_calls])
        return turn

    assert step(insert).tool_calls
    assert step(read).tool_calls
    again = proto.extract_calls(AssistantTurn(content=insert), registry)
    assert not again.tool_calls and again.call_errors == [ALREADY_DONE.format(name="edit_file")]
    proto.new_turn()                        # the user asks again in a new turn: it runs
    assert proto.extract_calls(AssistantTurn(content=insert), registry).tool_calls


def test_a_search_that_found_nothing_is_followed_by_look_another_way_once_per_turn(registry):
    """After "no matches" a 1.5B model answered "not found" at once; the hint to look another way
    comes once per turn (after that, "not found" may well be the answer)."""
    from axon_cli.agent.protocols.builtin import SEARCH_AGAIN

    proto = AutoProtocol()
    search = '```json\n{"name": "search_files", "arguments": {"pattern": "^version = (.+)$"}}\n```'

    def after(found_nothing: bool) -> str:
        turn = proto.extract_calls(AssistantTurn(content=search), registry)
        result = CallResult(turn.tool_calls[0].id, "search_files", "no matches", True, found_nothing=found_nothing)
        return proto.result_messages(turn, [result])[0]["content"]

    assert after(True).endswith(SEARCH_AGAIN)
    assert after(True).endswith(NEXT_STEP)
    proto.new_turn()
    assert after(False).endswith(NEXT_STEP)
    assert after(True).endswith(SEARCH_AGAIN)


def test_a_search_result_with_its_own_note_is_followed_by_take_that_step(registry):
    from axon_cli.agent.protocols.builtin import SEARCH_NOTE

    proto = AutoProtocol()
    turn = proto.extract_calls(AssistantTurn(content='{"name": "search_files", "arguments": {"pattern": "a.csv"}}'),
                               registry)
    note = "no matches for 'a.csv' in .\n[search_files looks for text inside files; a.csv is a file: …]"
    result = CallResult(turn.tool_calls[0].id, "search_files", note, True, found_nothing=True)
    assert proto.result_messages(turn, [result])[0]["content"].endswith(SEARCH_NOTE)
