"""The calls small models actually write, as text, and the prose that must never run: the parser
(``parse_text_calls``), the corrective errors (``tools/suggest``) and what each protocol takes.
Real code, real built-in tools."""

from __future__ import annotations

import json

import pytest

from axon_cli.agent.model.llm import AssistantTurn
from axon_cli.agent.protocols.builtin import make_protocol
from axon_cli.agent.protocols.callshapes import call_shape, leading_calls, whole_reply_calls
from axon_cli.agent.protocols.textcalls import parse_text_calls
from axon_cli.settings.config import Settings
from axon_cli.tools.dispatch import ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.suggest import closest_names, fitting_tool


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry.with_builtins()


READ = {"name": "read_file", "arguments": {"path": "setup.py"}}
LS = {"name": "bash", "arguments": {"command": "ls"}}


@pytest.mark.parametrize("reply", [
    json.dumps(READ),                                                   # bare
    "  \n" + json.dumps(READ, indent=2) + "\n",                         # pretty, padded
    "```json\n" + json.dumps(READ) + "\n```",                           # fenced
    "```\n" + json.dumps(READ) + "\n```",                               # fenced without a language
    json.dumps({"name": "read_file", "parameters": {"path": "setup.py"}}),          # llama's key
    json.dumps({"type": "function", "function": READ}),                 # OpenAI's wrapper
    json.dumps({"name": "read_file", "arguments": json.dumps({"path": "setup.py"})}),   # string arguments
    "[TOOL_CALLS] [" + json.dumps(READ) + "]",                          # mistral's marker
    "<|python_tag|>" + json.dumps(READ),                                # llama's marker
    "<think>\nThe user wants setup.py.\n</think>\n\n" + json.dumps(READ),   # after a reasoning model's thoughts
])
def test_a_reply_that_is_exactly_one_call_object_is_a_call(registry, reply):
    parsed = parse_text_calls(reply, registry)
    assert parsed.calls == [("read_file", {"path": "setup.py"})] and parsed.errors == []
    assert parsed.whole and parsed.rules[0].startswith("whole reply is call JSON")


@pytest.mark.parametrize("reply", [
    json.dumps(READ) + "\n" + json.dumps(LS),                           # one after another
    json.dumps([READ, LS]),                                             # a list
    json.dumps(READ) + ",\n" + json.dumps(LS),                          # comma-separated
    "```json\n" + json.dumps(READ) + "\n```\n\n```json\n" + json.dumps(LS) + "\n```",   # several fences
])
def test_several_call_objects_and_nothing_else_are_several_calls(registry, reply):
    parsed = parse_text_calls(reply, registry)
    assert parsed.calls == [("read_file", {"path": "setup.py"}), ("bash", {"command": "ls"})]
    assert "several objects" in parsed.rules[0]


def test_tool_call_without_closing_tags_at_the_end(registry):
    one = parse_text_calls("Reading.\n<tool_call>\n" + json.dumps(READ), registry)
    assert one.calls == [("read_file", {"path": "setup.py"})]
    assert one.rules == ["<tool_call> without its closing tag at the end"]
    two = parse_text_calls("<tool_call>" + json.dumps(READ) + "\n<tool_call>" + json.dumps(LS), registry)
    assert two.calls == [("read_file", {"path": "setup.py"}), ("bash", {"command": "ls"})] and two.whole


def test_a_known_shape_with_a_file_name_for_a_name_is_corrected_toward_the_tool_it_fits(registry):
    parsed = parse_text_calls(json.dumps({"name": "x.cfg", "arguments": {"path": "x.cfg"}}), registry)
    assert parsed.calls == [] and parsed.whole
    (error,) = parsed.errors
    assert "unknown tool 'x.cfg'" in error and "nothing was run" in error
    assert 'Your arguments fit read_file: call it with "name": "read_file"' in error
    assert "Available tools: read_file" in error
    assert "unknown tool 'x.cfg'" in parsed.error_rules[0]


def test_an_invented_tool_name_gets_the_closest_names(registry):
    parsed = parse_text_calls("```json\n" + json.dumps({"name": "delete_file", "arguments": {"file": "a"}})
                              + "\n```", registry)
    (error,) = parsed.errors
    assert "unknown tool 'delete_file'" in error and "Closest tool names: " in error
    assert "edit_file" in error.split("Closest tool names: ")[1].split(".")[0]
    assert "Your arguments fit" not in error   # "file" is nobody's parameter


def test_a_deferred_tool_in_a_call_shaped_reply_says_to_activate_it(registry):
    parsed = parse_text_calls(json.dumps({"name": "memory_save", "arguments": {"name": "n", "content": "c"}}), registry)
    assert parsed.calls == [] and "not active yet" in parsed.errors[0] and "tool_search" in parsed.errors[0]


def test_suggestions(registry):
    assert fitting_tool({"path": "a"}, registry) == "read_file"          # list_files fits too, less exactly
    assert fitting_tool({"path": "a", "content": "x"}, registry) == "write_file"
    assert fitting_tool({"command": "ls"}, registry) == "bash"
    assert fitting_tool({"path": 3, "content": "x"}, registry) is None   # does not validate
    assert fitting_tool({}, registry) is None
    assert closest_names("read_files", registry)[0] == "read_file"
    assert closest_names("zzzz", registry) == []


@pytest.mark.parametrize("reply", [
    # an explanation with a JSON example among text
    'The agent sends calls such as {"name": "read_file", "arguments": {"path": "a"}} to the tool layer.',
    'Use this format:\n```json\n{"name": "read_file", "arguments": {"path": "a"}, "id": 7, "note": "x"}\n```\nThen …',
    # JSON that is not a call: a package.json, a list of records, an object with extra keys
    '```json\n{"name": "my-package", "version": "1.0.0"}\n```',
    json.dumps([{"name": "alice", "age": 3}, {"name": "bob", "age": 4}]),
    json.dumps({"name": "read_file", "arguments": {"path": "a"}, "result": "…"}),
    json.dumps([READ, {"name": "x", "value": 1}]),                       # one of them is not a call
    # code blocks that are not exactly a call
    '```python\nread_file(path="a.txt")\n```',
    '```bash\ncat a.txt\n```',
    # JSON that opens the reply but is not a call, then prose
    '```json\n{"name": "my-package", "version": "1.0.0"}\n```\nThis is the package.json.',
    json.dumps({"name": "read_file", "arguments": {"path": "a"}, "result": "x"}) + "\nThat is the record.",
])
def test_prose_and_json_that_are_not_exactly_calls_never_run(registry, reply):
    parsed = parse_text_calls(reply, registry, prose_fences=False)
    assert parsed.calls == [] and parsed.errors == [] and not parsed.whole


def test_call_shape_rejects_what_is_not_a_call():
    assert call_shape({"name": "a", "arguments": {}}) == ("a", {})
    assert call_shape({"name": "a", "arguments": [1]}) is None
    assert call_shape({"name": "a", "arguments": "not json"}) is None
    assert call_shape({"name": 1, "arguments": {}}) is None
    assert call_shape({"name": "a"}) is None
    assert whole_reply_calls("") is None and whole_reply_calls("42") is None


def _extract(settings: Settings, registry: ToolRegistry, content: str) -> AssistantTurn:
    return make_protocol(settings, registry).extract_calls(AssistantTurn(content=content), registry)


@pytest.mark.parametrize("protocol", ["native", "auto", "text"])
def test_every_protocol_takes_a_reply_of_only_calls_and_reports_unknown_names(registry, protocol):
    s = Settings(tool_protocol=protocol)
    turn = _extract(s, registry, json.dumps([READ, {"name": "x.cfg", "arguments": {"path": "x.cfg"}}]))
    assert [(c.name, c.source) for c in turn.tool_calls] == [("read_file", "text")]
    assert len(turn.call_errors) == 1 and "fit read_file" in turn.call_errors[0]
    unclosed = _extract(s, registry, "<tool_call>" + json.dumps(LS))
    assert [c.name for c in unclosed.tool_calls] == ["bash"]


def test_native_takes_no_fenced_call_among_prose_and_reports_nothing_there(registry):
    prose = "I would read it:\n```json\n" + json.dumps(READ) + "\n```\nbut it is not needed."
    native = _extract(Settings(), registry, prose)
    assert native.tool_calls == [] and native.call_errors == []
    assert [c.name for c in _extract(Settings(tool_protocol="text"), registry, prose).tool_calls] == ["read_file"]
    tagged = _extract(Settings(), registry, "Reading it. <tool_call>" + json.dumps(READ) + "</tool_call>")
    assert [c.name for c in tagged.tool_calls] == ["read_file"]
    bad = _extract(Settings(), registry, 'Done. <tool_call>{"name": "nope", "arguments": {}}</tool_call>')
    assert bad.tool_calls == [] and bad.call_errors == []


def test_native_calls_win_over_text(registry):
    turn = AssistantTurn(content=json.dumps(LS), tool_calls=[ToolCall("c1", "read_file", "{}")])
    out = make_protocol(Settings(), registry).extract_calls(turn, registry)
    assert [c.id for c in out.tool_calls] == ["c1"] and out.call_errors == []


def test_a_native_call_of_an_unknown_tool_gets_the_same_suggestions(registry, tmp_path):
    from axon_cli.tools.dispatch import CallResult, Dispatcher
    from axon_cli.tools.spec import ToolContext

    ctx = ToolContext(project_root=tmp_path, state_dir=tmp_path / ".axon", session_id="s1", settings=Settings())
    result = Dispatcher(registry, ctx).prepare(ToolCall("c1", "read_files", json.dumps({"path": "a"})))
    assert isinstance(result, CallResult) and not result.ok
    assert result.content.startswith("Error: unknown tool 'read_files'. Available tools: ")
    assert "Closest tool names: read_file" in result.content and "Your arguments fit read_file" in result.content


NARRATED = [   # what Qwen2.5-Coder-1.5B wrote with no config: the call first, then the result it imagines
    "```json\n" + json.dumps(READ, indent=2) + "\n```\n\nThe output of the `read_file` command will show it.",
    json.dumps(READ) + "\nThat is what I would call.",
    "<think>x</think>```json\n" + json.dumps(READ) + "\n```\n```json\n" + json.dumps(LS) + "\n```\nThen: done",
]


@pytest.mark.parametrize("reply", NARRATED)
def test_a_reply_that_opens_with_calls_then_narrates_is_those_calls(registry, reply):
    parsed = parse_text_calls(reply, registry, prose_fences=False)
    assert parsed.calls[0] == ("read_file", {"path": "setup.py"}) and parsed.errors == []
    assert parsed.rules[0].startswith("reply opens with call JSON") and not parsed.whole
    assert parsed.prose_from is not None and reply[parsed.prose_from:].strip()[:4] in ("The ", "That", "Then")


@pytest.mark.parametrize("protocol", ["native", "auto", "text"])
def test_every_protocol_runs_the_opening_calls_and_drops_the_narration(registry, protocol):
    turn = _extract(Settings(tool_protocol=protocol), registry, NARRATED[0])
    assert [(c.name, json.loads(c.arguments)) for c in turn.tool_calls] == [("read_file", {"path": "setup.py"})]
    assert turn.content.endswith("```") and "will show" not in turn.content
    wrong = _extract(Settings(tool_protocol=protocol), registry,
                     json.dumps({"name": "settings.ini", "arguments": {"path": "settings.ini"}}) + "\nIt shows x.")
    assert wrong.tool_calls == [] and len(wrong.call_errors) == 1 and "read_file" in wrong.call_errors[0]


def test_prose_first_is_never_an_opening_call():
    assert leading_calls("Sure. " + json.dumps(READ) + " and more") is None
    assert leading_calls(json.dumps(READ)) is None                    # nothing after: a whole-reply call
    assert leading_calls("```json\n" + json.dumps(READ) + "\n```\n```python\nx\n```\nok") is not None
    assert leading_calls("```json\n[1, 2]\n```\nnumbers") is None


@pytest.mark.parametrize("reply, expected", [
    # a file's content in Python triple quotes (seen from a 1.5B model creating greet.py)
    ('```json\n{\n  "name": "write_file",\n  "arguments": {\n    "path": "greet.py",\n    "content": """\n'
     "def greet(name):\n    return 'Hello, ' + name + '!'\n\"\"\"\n  }\n}\n```",
     ("write_file", {"path": "greet.py", "content": "def greet(name):\n    return 'Hello, ' + name + '!'\n"})),
    # a raw-string pattern and Python's False (seen counting TODOs)
    ('```json\n{"name": "search_files", "arguments": {"pattern": r"TODO.*\\n", "ignore_case": False}}\n```',
     ("search_files", {"pattern": "TODO.*\\n", "ignore_case": False})),
    ("{'name': 'read_file', 'arguments': {'path': 'setup.py'}}", ("read_file", {"path": "setup.py"})),
])
def test_python_style_call_literals_are_calls(reply, expected):
    assert whole_reply_calls(reply) == ([expected], "whole reply is call JSON (fenced ```json, one object)"
                                        if reply.startswith("```") else "whole reply is call JSON (bare JSON, one object)")


@pytest.mark.parametrize("reply", [
    '{"name": "bash", "arguments": {"command": __import__("os").system("touch pwned")}}',   # never evaluated
    '{"name": "bash", "arguments": {"command": "ls" + " -la"}}',                             # an expression
    "{'name': 'read_file', 'arguments': {'path': 'a'}, 'extra': f'{x}'}",
    "```python\ndef read_file(path):\n    return open(path).read()\n```",
])
def test_python_code_is_never_a_call(reply, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert whole_reply_calls(reply) is None
    assert not (tmp_path / "pwned").exists()


def test_auto_runs_a_fenced_call_among_prose_only_when_the_user_asked_for_a_change(registry):
    prose = ("The value is 3. To set it to 12, edit the file:\n```json\n"
             + json.dumps({"name": "edit_file", "arguments": {"path": "app/limits.py", "old_string": "X = 3",
                                                               "new_string": "X = 12"}})
             + "\n```\nAfter this the value is 12.")
    for task, runs in (("Set X in app/limits.py to 12.", True), ("How would I set X to 12?", False),
                       ("what is X?", False), ("", False)):
        for protocol, expected in (("auto", runs), ("native", False)):
            proto = make_protocol(Settings(tool_protocol=protocol), registry)
            proto.new_turn(task)
            turn = proto.extract_calls(AssistantTurn(content=prose), registry)
            assert [c.name for c in turn.tool_calls] == (["edit_file"] if expected else []), (task, protocol)


@pytest.mark.parametrize("protocol", ["auto", "text"])
def test_a_change_written_after_a_read_in_the_same_reply_waits_for_the_read(registry, protocol):
    read = {"name": "read_file", "arguments": {"path": "config/db.toml"}}
    write = {"name": "edit_file", "arguments": {"path": "dbname.txt", "old_string": "", "new_string": "{{db_name}}"}}
    proto = make_protocol(Settings(tool_protocol=protocol), registry)
    proto.new_turn("Read the name from config/db.toml and write it into dbname.txt.")
    turn = proto.extract_calls(AssistantTurn(content=json.dumps([read, write])), registry)
    assert [c.name for c in turn.tool_calls] == ["read_file"]
    assert turn.call_errors == ["Error: edit_file was not run: it came after read_file in the same reply, so it "
                                "was written before that result was seen. The result is above now: make the "
                                "edit_file call again, using what it shows."]
    first_write = proto.extract_calls(AssistantTurn(content=json.dumps([write, read])), registry)
    assert [c.name for c in first_write.tool_calls] == ["edit_file", "read_file"]   # write, then read it back
    native = AssistantTurn(content="", tool_calls=[ToolCall("c1", "read_file", json.dumps(read["arguments"])),
                                                   ToolCall("c2", "edit_file", json.dumps(write["arguments"]))])
    assert len(proto.extract_calls(native, registry).tool_calls) == 2   # native calls are never held
