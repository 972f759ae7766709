"""End-to-end through the real ``axon run``: deferred tools stay out of the first request,
tool_search activates them for the following requests, and they then work."""

from __future__ import annotations

import json

from tests.fakeserver import text_reply, tool_reply

DEFERRED = {"memory_save", "memory_read", "todo_write"}


def test_tool_search_activates_memory_for_the_next_request(server, run_axon, project):
    server.add(
        tool_reply(("tool_search", {"query": "save a note to memory"})),
        tool_reply(("memory_save", {"name": "deploy", "content": "Deploy with `make ship`."})),
        tool_reply(("memory_read", {})),
        text_reply("Noted."),
    )
    r = run_axon("run", "remember how to deploy", "--yes")
    assert r.code == 0, r.stderr
    assert r.stdout == "Noted.\n"

    first = server.requests[0]
    assert "tool_search" in first.tool_names
    assert not DEFERRED & set(first.tool_names)
    system = first.messages[0]["content"]
    assert "- memory_save: save a named note to project memory" in system
    assert "- todo_write: " in system

    second = server.requests[1]
    # a local endpoint keeps the tools it was sent first (its prefix cache): the activated ones are
    # described after the result that activated them, with their parameters, and callable
    assert second.tool_names == first.tool_names
    search_answer, described = second.messages[-2:]
    assert search_answer["role"] == "tool"
    assert search_answer["content"].startswith("Activated 2 tools")
    assert '"memory_save"' in described["content"] and '"memory_read"' in described["content"]
    assert "todo_write" not in described["content"]

    saved = server.requests[2].messages[-1]["content"]
    assert saved == "Memory 'deploy' saved (25 chars) in .axon/memory/deploy.md."
    assert (project / ".axon" / "memory" / "deploy.md").read_text() == "Deploy with `make ship`.\n"
    listing = server.requests[3].messages[-1]["content"]
    assert listing == "1 saved memory:\n- deploy (25 bytes): Deploy with `make ship`."
    assert server.requests[3].tool_names == first.tool_names   # activation lasts (the calls ran), the head stays


def test_deferred_tool_called_directly_is_refused_with_a_hint(server, run_axon, project):
    server.add(tool_reply(("memory_save", {"name": "x", "content": "y"})), text_reply("ok"))
    r = run_axon("run", "save", "--yes")
    assert r.code == 0, r.stderr
    answer = server.requests[1].messages[-1]["content"]
    assert answer.startswith("Error: tool 'memory_save' is deferred and not active yet. Call tool_search")
    assert not (project / ".axon" / "memory").exists()


def test_todo_write_reaches_the_event_stream(server, run_axon):
    todos = [{"content": "write code", "status": "in_progress"}, {"content": "test it"}]
    server.add(tool_reply(("tool_search", {"query": "select:todo_write"})),
               tool_reply(("todo_write", {"todos": todos})), text_reply("planned"))
    r = run_axon("run", "plan", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines()]
    updates = [e for e in events if e["type"] == "todo_updated"]
    assert updates == [{"type": "todo_updated", "todos": [
        {"content": "write code", "status": "in_progress"}, {"content": "test it", "status": "pending"}]}]
    assert server.requests[2].messages[-1]["content"] == "Todo list (0/2 done):\n[~] write code\n[ ] test it"
