"""The call schema, the reading of a constrained reply, and who is ever constrained
(``agent/model/constrained.py``)."""

from __future__ import annotations

import json

import pytest

from axon_cli.agent.model.constrained import Constraint, call_schema, call_text
from axon_cli.agent.model.llm import LLMClient
from axon_cli.settings.config import Settings
from axon_cli.tools.registry import ToolRegistry


def test_the_schema_has_one_closed_branch_per_tool_with_its_own_parameters():
    tools = [s.openai_tool() for s in ToolRegistry.with_builtins().active() if s.name in ("read_file", "bash")]
    schema = call_schema(tools)
    branches = {b["properties"]["name"]["const"]: b for b in schema["anyOf"]}
    assert set(branches) == {"read_file", "bash"}
    read = branches["read_file"]["properties"]["arguments"]
    assert read["required"] == ["path"] and read["additionalProperties"] is False
    assert all(b["additionalProperties"] is False and b["required"] == ["name", "arguments"] for b in branches.values())
    assert "title" not in json.dumps(schema)


@pytest.mark.parametrize("content, expected", [
    ('{"name": "read_file", "arguments": {"path": "a.py"}}', {"name": "read_file", "arguments": {"path": "a.py"}}),
    ('```json\n{"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}\n```', {"name": "bash", "arguments": {"command": "ls"}}),
    ('{"name": "rm_rf", "arguments": {}}', None),             # not one of the tools asked for
    ("The answer is 4.", None),
    ('{"name": "bash", "arguments": [1]}', None),
])
def test_a_constrained_reply_becomes_a_tool_call_block_or_nothing(content, expected):
    text = call_text(content, {"read_file", "bash"})
    if expected is None:
        assert text is None
    else:
        assert text is not None and text.startswith("<tool_call>\n") and text.endswith("\n</tool_call>")
        assert json.loads(text.split("\n")[1]) == expected


def test_a_hosted_endpoint_is_never_constrained():
    for url in ("https://api.openai.com/v1", "https://openrouter.ai/api/v1", None):
        client = LLMClient(Settings(base_url=url, model="qwen2.5-coder-1.5b", guidance="on"))
        assert not client.constraint.available, url
    assert LLMClient(Settings(base_url="http://192.168.1.9:8080/v1")).constraint.available


def test_each_form_is_tried_once_then_none_and_a_server_that_ignores_it_is_left_alone():
    c = Constraint(local=True)
    params = c.params({"type": "object"}, native_tools=True)
    assert params["response_format"]["type"] == "json_schema" and params["tool_choice"] == "required"
    assert not c.refused(400, "tool_choice must be auto", params)        # not about the constraint
    assert c.refused(422, "response_format.type: Input should be 'text' or 'json_object'", params)
    assert c.params({"type": "object"}, native_tools=False)["response_format"]["type"] == "json_object"
    assert c.refused(500, "", params) and not c.available
    ignored = Constraint(local=True)
    ignored.replied(made_call=False)
    assert not ignored.available
    honoured = Constraint(local=True)
    honoured.replied(made_call=True)
    honoured.replied(made_call=False)          # the model's slip, once the server honoured it
    assert honoured.available
