"""Unit tests of the text tool-call protocol: parsing calls out of replies, describing tools,
the protocols' messages, the nudges, and the compact profile. Real code, real built-in tools."""

from __future__ import annotations

import json

import pytest

from axon_cli.agent.guidance.nudges import EMPTY_NUDGE, TEXT_HINT, Nudger
from axon_cli.agent.model.llm import AssistantTurn
from axon_cli.agent.protocols.builtin import (
    COMPACT_CORE,
    AutoProtocol,
    CompactNativeProtocol,
    TextProtocol,
    apply_profile,
    make_protocol,
)
from axon_cli.agent.protocols.textcalls import parse_text_calls
from axon_cli.settings.config import Settings
from axon_cli.tools.dispatch import CallResult
from axon_cli.tools.registry import ToolRegistry, builtin_specs


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry.with_builtins()


def call(tool: str, /, **args: object) -> str:
    return "<tool_call>\n" + json.dumps({"name": tool, "arguments": args}) + "\n</tool_call>"


def test_tagged_calls_in_order(registry):
    text = "I'll look.\n" + call("read_file", path="a.txt") + "\nand\n" + call("bash", command="ls")
    parsed = parse_text_calls(text, registry)
    assert parsed.calls == [("read_file", {"path": "a.txt"}), ("bash", {"command": "ls"})]
    assert parsed.errors == []


def test_tools_wrapper_list_parameters_alias_and_string_arguments(registry):
    text = ('<tools>[{"name": "read_file", "parameters": {"path": "x"}}, '
            '{"name": "bash", "arguments": "{\\"command\\": \\"pwd\\"}"}]</tools>')
    parsed = parse_text_calls(text, registry)
    assert parsed.calls == [("read_file", {"path": "x"}), ("bash", {"command": "pwd"})]


def test_fenced_json_inside_a_tag_and_a_missing_closing_tag_at_the_end(registry):
    text = '<tool_call>```json\n{"name": "bash", "arguments": {"command": "ls"}}\n```</tool_call>\n' \
           '<tool_call>{"name": "read_file", "arguments": {"path": "b"}}'
    parsed = parse_text_calls(text, registry, finish_reason="stop")
    assert parsed.calls == [("bash", {"command": "ls"}), ("read_file", {"path": "b"})]


def test_bare_fenced_json_of_exactly_the_call_shape(registry):
    text = 'Reading it:\n```json\n{"name": "read_file", "arguments": {"path": "setup.py"}}\n```\n'
    assert parse_text_calls(text, registry).calls == [("read_file", {"path": "setup.py"})]


@pytest.mark.parametrize("block", [
    '```json\n{"name": "read_file", "arguments": {"path": "a"}, "id": 1}\n```',   # extra key
    '```json\n{"name": "my-package", "version": "1.0.0"}\n```',                   # package.json
    '```json\n{"name": "no_such_tool", "arguments": {}}\n```',                    # unknown tool
    '```json\n{"name": "read_file", "arguments": "a.txt"}\n```',                  # not an object
    '```python\nread_file(path="a.txt")\n```',                                     # code
    '```bash\ncat a.txt\n```',
])
def test_code_blocks_that_only_show_code_are_left_alone(registry, block):
    parsed = parse_text_calls(f"Example:\n{block}\n", registry)
    assert parsed.calls == [] and parsed.errors == []


def test_malformed_tagged_calls_become_errors_not_calls(registry):
    text = ('<tool_call>{"name": "read_file", "arguments": {"path": "a"</tool_call>'
            + call("no_such_tool", x=1) + call("memory_save", name="n", content="c")
            + '<tool_call>{"name": "bash", "arguments": ["ls"]}</tool_call>')
    parsed = parse_text_calls(text, registry)
    assert parsed.calls == []
    bad_json, unknown, deferred, not_object = parsed.errors
    assert "not valid JSON" in bad_json and '"path": "a"' in bad_json and "<tool_call>" in bad_json
    assert "unknown tool 'no_such_tool'" in unknown and "read_file" in unknown
    assert "'memory_save' is not active" in deferred and "tool_search" in deferred
    assert 'arguments" of bash must be a JSON object' in not_object


def test_a_call_cut_by_the_length_limit_is_never_a_call(registry):
    text = 'Writing:\n<tool_call>{"name": "write_file", "arguments": {"path": "a.py", "content": "import o'
    parsed = parse_text_calls(text, registry, finish_reason="length")
    assert parsed.calls == []
    assert len(parsed.errors) == 1 and "output token limit" in parsed.errors[0]


def test_html_escaped_quotes_are_unescaped(registry):
    # seen from Qwen2.5-Coder-1.5B on llama.cpp after a tool result
    text = '```json\n{&#34;name&#34;: &#34;bash&#34;, &#34;arguments&#34;: {&#34;command&#34;: &#34;ls&#34;}}\n```'
    assert parse_text_calls(text, registry).calls == [("bash", {"command": "ls"})]
    tagged = '<tool_call>{&quot;name&quot;: &quot;bash&quot;, &quot;arguments&quot;: {}}</tool_call>'
    assert parse_text_calls(tagged, registry).calls == [("bash", {})]
    whole = '&lt;tool_call&gt;\n{&#34;name&#34;: &#34;bash&#34;, &#34;arguments&#34;: {}}\n&lt;/tool_call&gt;'
    assert parse_text_calls(whole, registry).calls == [("bash", {})]


def test_a_stray_brace_after_the_json_is_tolerated(registry):
    parsed = parse_text_calls('<tool_call>{"name": "bash", "arguments": {"command": "ls"}}}</tool_call>', registry)
    assert parsed.calls == [("bash", {"command": "ls"})]


def test_text_protocol_ids_source_and_invented_results(registry):
    proto = TextProtocol(registry)
    turn = AssistantTurn(content=call("bash", command="ls") + "\n<tool_response>made up</tool_response>")
    turn = proto.extract_calls(turn, registry)
    assert [(c.id, c.source) for c in turn.tool_calls] == [("text_call_1", "text")]
    assert "made up" not in turn.content and turn.content.endswith("</tool_call>")
    assert "tool_calls" not in turn.message() and turn.message()["content"] == turn.content
    second = proto.extract_calls(AssistantTurn(content=call("read_file", path="x")), registry)
    assert second.tool_calls[0].id == "text_call_2"


def test_text_results_are_one_user_message_with_errors_after(registry):
    proto = TextProtocol(registry)
    proto.system_block(registry)
    turn = proto.extract_calls(AssistantTurn(content=call("bash", command="ls") + call("nope")), registry)
    messages = proto.result_messages(turn, [CallResult("text_call_1", "bash", "a.txt\n", True)])
    assert len(messages) == 1 and messages[0]["role"] == "user"
    content = messages[0]["content"]
    assert content.startswith('<tool_response name="bash">\na.txt\n\n</tool_response>')
    assert "unknown tool 'nope'" in content


def test_text_protocol_describes_tools_activated_later(registry):
    proto = TextProtocol(registry)
    assert "memory_save" not in proto.system_block(registry).split("<tools>")[1]
    registry.activate(["memory_save"])
    turn = proto.extract_calls(AssistantTurn(content=call("tool_search", query="memory")), registry)
    content = proto.result_messages(turn, [CallResult("text_call_1", "tool_search", "activated", True)])[0]["content"]
    assert "now available" in content and '"name":"memory_save"' in content


def test_auto_protocol_prefers_native_calls_and_keeps_kinds_apart(registry):
    notices: list[str] = []
    proto = AutoProtocol(lambda e: notices.append(e.message))  # type: ignore[attr-defined]
    from axon_cli.tools.dispatch import ToolCall

    native = AssistantTurn(content=call("bash", command="ls"), tool_calls=[ToolCall("c1", "read_file", "{}")])
    assert proto.extract_calls(native, registry).tool_calls[0].id == "c1" and notices == []
    text = proto.extract_calls(AssistantTurn(content=call("bash", command="ls") + call("nope")), registry)
    assert [c.name for c in text.tool_calls] == ["bash"]
    assert notices == ["treated a text tool call as a call (bash)"]
    # a reply of nothing but calls hears about the unusable one; malformed text among prose does not
    assert len(text.call_errors) == 1 and "unknown tool 'nope'" in text.call_errors[0]
    prose = proto.extract_calls(AssistantTurn(content="Done. " + call("nope")), registry)
    assert prose.tool_calls == [] and prose.call_errors == []
    msgs = proto.result_messages(native, [CallResult("c1", "read_file", "x", True)])
    assert msgs == [{"role": "tool", "tool_call_id": "c1", "content": "x"}]


def test_make_protocol_by_settings(registry):
    assert isinstance(make_protocol(Settings(tool_protocol="text"), registry), TextProtocol)
    assert isinstance(make_protocol(Settings(tool_protocol="auto"), registry), AutoProtocol)
    compact = make_protocol(Settings(prompt_profile="compact", tool_protocol="native"), registry)
    assert compact.tools_param(registry) == CompactNativeProtocol().tools_param(registry)
    native = make_protocol(Settings(tool_protocol="native"), registry)
    assert native.tools_param(registry) == registry.openai_tools()
    assert isinstance(native, AutoProtocol) and native.strict and native.system_block(registry) == ""
    default = make_protocol(Settings(), registry)                # auto is the default
    assert isinstance(default, AutoProtocol) and not default.strict
    assert default.tools_param(registry) == registry.openai_tools()


def test_compact_profile_defers_the_rest_without_touching_shared_specs(registry):
    apply_profile(registry, Settings(prompt_profile="compact"))
    assert [s.name for s in registry.active()] == [n for n in registry.names() if n in COMPACT_CORE]
    # small models must be able to create files without a tool_search first
    assert {s.name for s in registry.active()} == {"read_file", "write_file", "edit_file", "bash", "tool_search"}
    assert all(not s.deferred for s in builtin_specs() if s.name in ("write_file", "read_file"))
    assert ToolRegistry.with_builtins().is_active("write_file")
    compact = CompactNativeProtocol().tools_param(registry) or []
    assert len(json.dumps(compact)) < len(json.dumps(registry.openai_tools()))


def test_nudger_empty_once_then_gives_up():
    n = Nudger(TEXT_HINT, tools_active=True)
    assert n.check("") == EMPTY_NUDGE and not n.gave_up
    assert n.check("  \n") is None and n.gave_up


def test_nudger_reminds_once_and_leaves_plain_answers_alone():
    n = Nudger(TEXT_HINT, tools_active=True)
    assert n.check("The version is 1.2.3.") is None
    reminder = n.check("Let me run the tests:\n```bash\npytest\n```")
    assert reminder is not None and "<tool_call>" in reminder
    assert n.check("Let me run the tests:\n```bash\npytest\n```") is None   # only once per run


@pytest.mark.parametrize("content, called, expected", [
    ("I'll run `pytest` now.", True, True),
    ("```sh\nmake\n```", True, True),
    ("Here is the fix:\n```python\nx = 1\n```", False, True),    # before any call: it meant to act
    ("I changed it to:\n```python\nx = 1\n```", True, False),     # after calls: a summary
    ("Done. Let me know if you need more.", True, False),
])
def test_what_counts_as_meaning_to_act(content, called, expected):
    n = Nudger(TEXT_HINT, tools_active=True)
    if called:
        n.saw_calls()
    assert n.means_to_act(content) is expected


@pytest.mark.parametrize("content, expected", [
    ("I'll run `pytest` now.", True),
    ("```sh\nmake\n```", False),                                   # a command shown to the user
    ("Here is the fix:\n```python\nx = 1\n```", False),            # a snippet is an answer
])
def test_native_models_are_reminded_only_for_stated_intent(content, expected):
    assert Nudger(None, tools_active=True).means_to_act(content) is expected


def test_no_reminder_without_tools():
    assert Nudger(None, tools_active=False).check("Let me run it:\n```bash\nls\n```") is None
