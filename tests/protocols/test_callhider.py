"""``CallHider``: a text call's body is dropped from the streamed answer however the deltas split it;
prose around it, and JSON or code that is not a call, come through whole and in order."""

from __future__ import annotations

import json

import pytest

from axon_cli.agent.protocols.callhider import CallHider
from axon_cli.tools.builtin.files.file_tools import TOOLS
from axon_cli.tools.registry import ToolRegistry


def _shown(reply: str, step: int) -> str:
    from axon_cli.agent.protocols.textcalls import parse_text_calls

    registry = ToolRegistry(TOOLS)
    hider = CallHider(lambda block: bool(parse_text_calls(block, registry).calls))
    out = "".join(hider.feed(reply[i:i + step]) for i in range(0, len(reply), step))
    return out + hider.flush()


CALL = json.dumps({"name": "read_file", "arguments": {"path": "a.py"}})
CASES = [
    (f"Reading.\n<tool_call>\n{CALL}\n</tool_call>\nDone.", "Reading.\nDone."),
    (f"Reading.\n```json\n{CALL}\n```\nDone.", "Reading.\nDone."),
    (f"{CALL}", ""),
    (f"First:\n{CALL}\nthen more.", "First:\nthen more."),
    ("Code:\n```python\nx = {1: 2}\n```\nend", "Code:\n```python\nx = {1: 2}\n```\nend"),
    ('Example:\n```json\n{"name": "read_file", "arguments": {}, "comment": "x"}\n```', None),
    ("a < b and {c} in a sentence `code`", None),
    (f"Unclosed: <tool_call>\n{CALL}", "Unclosed: "),
]


@pytest.mark.parametrize("step", [1, 3, 1000])
@pytest.mark.parametrize("reply,expected", CASES)
def test_call_bodies_are_hidden_whatever_the_split(reply: str, expected: str | None, step: int) -> None:
    assert _shown(reply, step) == (reply if expected is None else expected)
