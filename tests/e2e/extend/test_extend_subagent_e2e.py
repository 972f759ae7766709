"""End-to-end: the ``task`` tool runs a sub-agent (a nested agent with its own context) in the real
``axon run`` against the scripted server; only its final answer reaches the parent."""

from __future__ import annotations

import json
import threading
from typing import Any

from axon_cli.kernel.turn import UserTurn
from tests.fakeserver import Reply, text_reply, tool_reply, without_context

ACTIVATE = tool_reply(("tool_search", {"query": "select:task"}))


def events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_a_sub_agent_reads_two_files_and_the_parent_gets_only_its_answer(server, run_axon, project):
    (project / "a.txt").write_text("alpha-secret-content: the port is 8080\n")
    (project / "b.txt").write_text("beta-secret-content: the host is db.local\n")
    task = {"description": "find the address", "prompt": "Read a.txt and b.txt and report host:port."}
    server.add(ACTIVATE, tool_reply(("task", task)),
               tool_reply(("read_file", {"path": "a.txt"}), ("read_file", {"path": "b.txt"})),   # the sub-agent
               text_reply("The address is db.local:8080."),                                      # its answer
               text_reply("It is db.local:8080."))                                               # the parent
    ran = run_axon("run", "what is the database address?", "--output-format", "stream-json")
    assert ran.code == 0, ran.stderr
    parent_first, parent_task, child_first, child_second, parent_last = server.requests
    assert '{"name":"task",' in parent_task.messages[-1]["content"]   # activated, described after the result
    assert child_first.tool_names == ["read_file", "list_files", "search_files"]
    assert "You are a sub-agent" in child_first.messages[0]["content"]
    assert [(m["role"], UserTurn.from_message(m["content"]).text) for m in child_first.conversation[1:]] == \
        [("user", task["prompt"])]          # the files it names may come attached (guidance for small models)
    child_results = [m["content"] for m in child_second.messages if m["role"] == "tool"]
    assert "alpha-secret-content" in child_results[0] and "beta-secret-content" in child_results[1]
    # the parent's context: its own messages and the sub-agent's answer, nothing the sub-agent read
    answer = [m["content"] for m in parent_last.messages if m["role"] == "tool"][-1]
    assert answer.startswith("The address is db.local:8080.") and "[sub-agent general: 2 turns, 2 tool calls" in answer
    assert "secret-content" not in json.dumps(parent_last.messages)
    assert len(parent_last.messages) == len(parent_task.messages) + 2
    stream = events(ran.stdout)
    call_id = next(e["call_id"] for e in stream if e["type"] == "tool_call_begin" and e["name"] == "task")
    updates = [e for e in stream if e["type"] == "subagent_update"]
    assert updates and all(u["parent_call_id"] == call_id for u in updates)
    assert updates[-1]["status"] == "done" and updates[-1]["tool_calls"] == 2
    assert not [e for e in stream if e["type"] == "tool_call_begin" and e["name"] == "read_file"]
    result = [e for e in stream if e["type"] == "turn_complete"][-1]
    assert result["result"] == "It is db.local:8080."


def test_several_task_calls_run_at_the_same_time(server, run_axon, project):
    both_asked = threading.Barrier(2, timeout=20)

    def child(body: dict[str, Any]) -> Reply:
        prompt = without_context(body["messages"][1])["content"]
        try:
            both_asked.wait()          # returns only when the other sub-agent's request is in flight too
            return text_reply(f"answer to {prompt}")
        except threading.BrokenBarrierError:
            return text_reply("NOT CONCURRENT")

    server.add(ACTIVATE, tool_reply(("task", {"description": "one", "prompt": "question one"}),
                                    ("task", {"description": "two", "prompt": "question two"})),
               child, child, text_reply("both answered"))
    ran = run_axon("run", "ask both", timeout=90)
    assert ran.code == 0, ran.stderr
    results = [m["content"] for m in server.requests[-1].messages if m["role"] == "tool"][-2:]
    assert results[0].startswith("answer to question one") and results[1].startswith("answer to question two")


def test_a_named_agent_definition_sets_role_tools_and_turn_limit(server, run_axon, project):
    folder = project / ".axon" / "agents"
    folder.mkdir(parents=True)
    (folder / "lister.md").write_text("---\ndescription: lists files\ntools: [list_files]\nmax_turns: 1\n---\n"
                                      "You only list files.\n")
    server.add(ACTIVATE, tool_reply(("task", {"description": "list", "prompt": "list", "agent": "lister"})),
               tool_reply(("list_files", {})), text_reply("the sub-agent ran out of turns"))
    ran = run_axon("run", "list things")
    assert ran.code == 0, ran.stderr
    parent_task, child = server.requests[1], server.requests[2]
    assert "- lister: lists files" in parent_task.messages[-1]["content"]   # task, described once activated
    assert child.tool_names == ["list_files"] and "You only list files." in child.messages[0]["content"]
    result = [m["content"] for m in server.requests[3].messages if m["role"] == "tool"][-1]
    assert "reached its limit of 1 turns" in result


def test_a_sub_agent_whose_usage_went_unreported_says_so_and_the_run_usage_is_null(server, run_axon):
    task = {"description": "look", "prompt": "Say what you see."}
    server.add(ACTIVATE, tool_reply(("task", task)),
               text_reply("Nothing much.", no_usage=True),      # the sub-agent's only reply, no usage
               text_reply("It saw nothing much."))
    ran = run_axon("run", "look around", "--output-format", "json")
    assert ran.code == 0, ran.stderr
    answer = [m["content"] for m in server.requests[-1].messages if m["role"] == "tool"][-1]
    assert "tokens not reported" in answer and "0 prompt + 0 completion" not in answer
    assert json.loads(ran.stdout)["usage"] is None        # the parent's total includes the unreported request
