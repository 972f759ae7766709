"""A local server's prefix cache stays warm through a whole chore (issue 24, part 4).

llama.cpp and its kin re-evaluate a prompt from the first byte that differs from the last one they
saw. So every request of one ``axon run`` must begin with the previous request, byte for byte: the
same tool definitions (rendered at the head of the prompt by the chat template), the same system
prompt, every earlier message unchanged; guidance and volatile facts only ever appended at the end.
Asserted on what the scripted server received, for a chore that reads, fails an edit, edits, finds
a deferred tool, runs a command, and is sent back once by an answer check.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fakeserver import Recorded, text_reply, tool_reply

SMALL_MODEL = "qwen2.5-coder-1.5b-instruct"


def rendered(request: Recorded) -> tuple[str, list[str]]:
    """What a chat template would put first (the tools) and the messages, each as canonical JSON."""
    tools = json.dumps(request.body.get("tools") or [], sort_keys=True)
    return tools, [json.dumps(m, sort_keys=True) for m in request.messages]


def first_difference(before: Recorded, after: Recorded) -> str | None:
    tools_a, msgs_a = rendered(before)
    tools_b, msgs_b = rendered(after)
    if tools_a != tools_b:
        return f"tools changed: {json.loads(tools_a) and [t['function']['name'] for t in json.loads(tools_a)]} -> " \
               f"{[t['function']['name'] for t in json.loads(tools_b)]}"
    for i, (a, b) in enumerate(zip(msgs_a, msgs_b, strict=False)):
        if a != b:
            at = next(k for k, (x, y) in enumerate(zip(a + "\0", b + "\0", strict=False)) if x != y)
            return f"message {i} rewritten at character {at}:\n  was …{a[max(0, at - 80):at + 200]}\n  now …{b[max(0, at - 80):at + 200]}"
    if len(msgs_b) < len(msgs_a):
        return f"messages dropped: {len(msgs_a)} -> {len(msgs_b)}"
    return None


def chore(project: Any) -> list[Any]:
    (project / "app.py").write_text("def total(xs):\n    return sum(xs) + 1\n\nprint(total([1, 2]))\n")
    return [
        tool_reply(("read_file", {"path": "app.py"})),
        tool_reply(("edit_file", {"path": "app.py", "old_string": "sum(xs) + 2", "new_string": "sum(xs)"})),
        tool_reply(("edit_file", {"path": "app.py", "old_string": "sum(xs) + 1", "new_string": "sum(xs)"})),
        tool_reply(("tool_search", {"query": "todo list"})),
        tool_reply(("todo_write", {"todos": [{"content": "fix total", "status": "completed"}]})),
        tool_reply(("bash", {"command": "python3 app.py"})),
        text_reply("Fixed: total() no longer adds 1; app.py prints 3."),
        text_reply("Fixed: total() no longer adds 1; app.py prints 3."),
    ]


@pytest.mark.parametrize("protocol", ["auto", "native", "text"])
def test_every_request_extends_the_one_before_byte_for_byte(server, run_axon, project, protocol):
    server.add(*chore(project))
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text(f'tool_protocol = "{protocol}"\n')
    r = run_axon("run", "fix the off-by-one in total() in app.py", "--mode", "accept-edits",
                 env={"AXON_MODEL": SMALL_MODEL})
    assert r.code == 0, r.stderr
    assert "return sum(xs)\n" in (project / "app.py").read_text()
    assert len(server.requests) >= 6
    breaks = [(i, d) for i in range(1, len(server.requests))
              if (d := first_difference(server.requests[i - 1], server.requests[i]))]
    assert not breaks, "\n".join(f"request {i + 1}: {d}" for i, d in breaks)
    # the tool activated on the way was described to the model after the head, and its call ran
    after_search = json.dumps(server.requests[4].messages[-3:])
    assert "todo_write" in after_search and "todos" in after_search
    todo_result = json.dumps(server.requests[5].messages[-2:])
    assert "fix total" in todo_result and "not active" not in todo_result and "unknown tool" not in todo_result
