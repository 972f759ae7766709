"""Compaction: elision, the split point, and a long scripted session kept under its budget."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from axon_cli.kernel.events import AutoApprover, Compacted, Event, Notice
from axon_cli.session.conversation.compaction import ELIDE_MIN_CHARS, elide, split_point
from axon_cli.session.conversation.compaction_text import approx_tokens, summary_message
from axon_cli.session.conversation.transcript import Transcript, load_transcript
from axon_cli.session.runtime.opening import open_session
from axon_cli.settings.config import load_settings
from axon_cli.tools.spec import ToolContext, ToolSpec
from tests.conftest import TEST_KEY
from tests.fakeserver import Reply, error_reply, text_reply, tool_reply

BIG = "x" * (ELIDE_MIN_CHARS * 3)
WINDOW = 8000


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def _exchange(call_id: str, name: str, args: dict[str, Any], result: str) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": None, "tool_calls": [_call(call_id, name, args)]},
            {"role": "tool", "tool_call_id": call_id, "content": result}]


def assert_paired(messages: list[dict[str, Any]]) -> None:
    """Every tool call answered once, right after its assistant message; no stray tool result."""
    open_ids: list[str] = []
    for m in messages:
        if m["role"] == "tool":
            assert m["tool_call_id"] in open_ids, f"stray tool result {m['tool_call_id']}"
            open_ids.remove(m["tool_call_id"])
            continue
        assert not open_ids, f"unanswered calls {open_ids}"
        open_ids = [c["id"] for c in m.get("tool_calls") or []]
    assert not open_ids


def test_elide_keeps_recent_results_latest_reads_and_pairs():
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "s"}, {"role": "user", "content": "task"}]
    msgs += _exchange("r1", "read_file", {"path": "a.py"}, "OLD READ " + BIG)
    msgs += _exchange("b1", "bash", {"command": "make"}, "BUILD LOG " + BIG)
    msgs += _exchange("r2", "read_file", {"path": "a.py"}, "NEW READ " + BIG)
    msgs += _exchange("w1", "write_file", {"path": "b.py", "content": BIG}, "wrote b.py")
    msgs += _exchange("b2", "bash", {"command": "ls"}, "RECENT " + BIG)
    out, n = elide(msgs, goal_tokens=0, keep_recent=1)
    contents = {m.get("tool_call_id"): m["content"] for m in out if m["role"] == "tool"}
    assert contents["r1"].startswith("[elided: ") and "read_file(path=a.py)" in contents["r1"]
    assert contents["b1"].startswith("[elided: ") and f"{len('BUILD LOG ' + BIG)} chars" in contents["b1"]
    assert contents["r2"].startswith("NEW READ")          # the file's latest read stays
    assert contents["b2"].startswith("RECENT")            # the most recent result stays
    write_args = json.loads(out[8]["tool_calls"][0]["function"]["arguments"])
    assert write_args == {"path": "b.py", "content": f"[elided: {len(BIG)} chars]"}
    assert n == 3 and msgs[3]["content"].startswith("OLD READ")   # the input list is untouched
    assert_paired(out)
    assert approx_tokens(out) < approx_tokens(msgs)


def test_elide_stops_at_the_goal():
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "t"}]
    for i in range(6):
        msgs += _exchange(f"c{i}", "bash", {"command": f"run {i}"}, BIG)
    goal = approx_tokens(msgs) - len(BIG) // 8     # one elision is enough
    out, n = elide(msgs, goal)
    assert n == 1 and out[2]["content"].startswith("[elided:") and out[4]["content"] == BIG


def test_split_point_never_separates_calls_from_results():
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "s"}, {"role": "user", "content": "t"}]
    for i in range(5):
        msgs += _exchange(f"c{i}", "bash", {"command": "x"}, "y" * 400)
    for keep in range(0, 800, 25):
        cut = split_point(msgs, keep)
        assert 2 <= cut < len(msgs) and msgs[cut]["role"] != "tool"
        assert_paired([msgs[0], *msgs[cut:]])


# -- through the real agent and the scripted server -----------------------------------------------
class GrowInput(BaseModel):
    n: int


def _grow(inp: GrowInput, ctx: ToolContext) -> str:
    return "".join(f"output line {j} of step {inp.n}\n" for j in range(4 + inp.n // 3))


GROW = ToolSpec(name="grow", description="Print a growing log.", input_model=GrowInput, handler=_grow,
                is_read_only=lambda _i: True)


STEPS = 300


def _route(body: dict[str, Any]) -> Reply:
    """A summary request (no tools) gets a summary; otherwise the next step's tool call, until done."""
    if not body.get("tools"):
        return text_reply("Task: run the steps. Decisions: none. Files: none. Next steps: keep going.")
    last = body["messages"][-1]
    step = int(last["content"].split("of step ")[1].split()[0]) + 1 if last["role"] == "tool" else 0
    return tool_reply(("grow", {"n": step})) if step < STEPS else text_reply("all steps done")


@pytest.fixture
def small_window(project, server, monkeypatch):
    monkeypatch.chdir(project)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(project.parent / "home" / ".config"))
    return load_settings(project, flags={"base_url": server.url, "api_key": TEST_KEY, "model": "test-model",
                                         "context_window": WINDOW, "compact_at": 0.8, "max_attempts": 1},
                         env={})


def _session(loaded, project, events: list[Event] | None = None, **kw):
    rt = open_session(loaded, project, AutoApprover(), **kw)
    rt.registry.register(GROW)
    if events is not None:
        rt.bus.subscribe(events.append)
    return rt


def _prompt_tokens(body: dict[str, Any]) -> int:
    return len(json.dumps(body.get("messages", []))) // 4 + len(json.dumps(body.get("tools", []))) // 4


@pytest.mark.slow
def test_300_turns_with_growing_output_stay_under_the_budget(small_window, project, server):
    server.add(*[_route] * 1000)
    events: list[Event] = []
    rt = _session(small_window, project, events)
    try:
        result = rt.agent.run("run the 300 steps, one grow call each", max_turns=STEPS + 1)
    finally:
        rt.close()
    assert (result.stop_reason, result.result, result.num_turns) == ("final", "all steps done", STEPS + 1)
    main = [r for r in server.requests if r.body.get("tools")]
    summaries = [r for r in server.requests if not r.body.get("tools")]
    assert len(main) == STEPS + 1
    trigger = WINDOW * 0.8
    sizes = [_prompt_tokens(r.body) for r in main]
    assert max(sizes) <= trigger * 1.05, max(sizes)            # the estimate's slack, never the window
    assert min(sizes[-50:]) > trigger * 0.3                    # and the window is still put to use
    for r in main:
        assert_paired(r.messages)
        assert r.messages[0]["role"] == "system"
    compactions = [e for e in events if isinstance(e, Compacted)]
    assert summaries and len(summaries) < STEPS // 3
    assert any("elide" in c.method for c in compactions) and any("summary" in c.method for c in compactions)
    assert any(m["role"] == "tool" and m["content"].startswith("[elided:") for r in main for m in r.messages)
    for r in main[1:]:       # the most recent result is never elided
        assert not r.messages[-1]["content"].startswith("[elided:")
    last = main[-1].conversation
    summary = next(m["content"] for m in last if str(m.get("content", "")).startswith("[Earlier conversation"))
    assert "The user's latest request, verbatim:\nrun the 300 steps, one grow call each" in summary
    assert f"of step {STEPS - 1}" in last[-1]["content"]
    # the transcript keeps everything, and a resume gets the compacted view
    loaded = load_transcript(project / ".axon" / "sessions" / f"{rt.session_id}.jsonl")
    assert loaded.message_count == 2 + 2 * STEPS + 1 and loaded.turns == 1
    assert len(loaded.messages) < 100 and loaded.messages[-1]["content"] == "all steps done"
    assert_paired(loaded.messages)


def test_a_failing_summary_is_retried_a_few_times_then_the_oldest_turns_are_dropped(small_window, project,
                                                                                    server):
    events: list[Event] = []
    rt = _session(small_window, project, events)
    history = [{"role": "user", "content": f"message {i} " + "z" * 2000} for i in range(20)]
    rt.agent.messages.extend(history)
    before = list(rt.agent.messages)
    server.add(*[error_reply(500, "summariser down")] * 3, text_reply("answered anyway"))
    try:
        result = rt.agent.run("go")
    finally:
        rt.close()
    assert result.result == "answered anyway"
    assert [bool(r.body.get("tools")) for r in server.requests] == [False, False, False, True]
    sent = server.requests[3].conversation
    assert sent[0] == before[0] and sent[-1] == {"role": "user", "content": "go"}
    assert sent[1]["content"].startswith("[Earlier conversation") and "dropped" in sent[1]["content"]
    kept = sent[2:-1]
    assert kept and kept == before[len(before) - len(kept):]       # the newest kept verbatim
    assert _prompt_tokens(server.requests[3].body) < WINDOW * 0.8  # under the budget, not only the window
    assert any(isinstance(e, Notice) and "could not summarise" in e.message for e in events)
    assert any(isinstance(e, Notice) and "dropped the" in e.message for e in events)


def test_too_long_triggers_one_compaction_and_one_retry_never_a_loop(small_window, project, server):
    rt = _session(small_window, project)
    rt.agent.messages.extend({"role": "user", "content": f"old {i}"} for i in range(6))
    too_long = error_reply(400, "This model's maximum context length is 8192 tokens")
    server.add(too_long, text_reply("summary of old"), too_long, text_reply("never asked"))
    try:
        result = rt.agent.run("now")
    finally:
        rt.close()
    assert result.stop_reason == "error" and "longer than the model's context" in result.result
    assert len(server.requests) == 3
    retried = server.requests[2].conversation
    assert retried[1]["content"].startswith("[Earlier conversation") and "summary of old" in retried[1]["content"]


def test_manual_compact_with_focus_and_resume_restores_it(small_window, project, server):
    server.add(text_reply("a1"), text_reply("a2"), text_reply("SUMMARY TEXT"), text_reply("after"))
    rt = _session(small_window, project)
    try:
        rt.agent.run("first: build the parser")
        rt.agent.run("second: the tests")
        rt.ctx.extra["todos"] = [{"content": "write docs", "status": "pending"}]
        line = rt.compact("the parser")
        assert line.startswith("compacted the history (summary)")
        request = server.requests[2].conversation[1]["content"]
        assert "Focus especially on: the parser" in request and "write docs" in request
        assert "first: build the parser" in request
    finally:
        rt.close()
    rt2 = _session(small_window, project, cont=True)
    try:
        rt2.agent.run("third")
        sent = server.requests[3].conversation
        assert sent[1]["content"].startswith("[Earlier conversation") and "SUMMARY TEXT" in sent[1]["content"]
        assert "- [pending] write docs" in sent[1]["content"]
        assert [m["content"] for m in sent[2:]] == ["second: the tests", "a2", "third"]
        assert rt2.ctx.extra["todos"] == [{"content": "write docs", "status": "pending"}]
    finally:
        rt2.close()


def test_facts_survive_a_second_summary():
    first_old = [{"role": "user", "content": "refactor the parser"},
                 *_exchange("e1", "edit_file", {"path": "parser.py", "old_string": "a", "new_string": "b"}, "ok"),
                 *_exchange("r1", "read_file", {"path": "lexer.py"}, "text")]
    first = summary_message("S1", first_old, None)
    second_old = [first, *_exchange("w1", "write_file", {"path": "tests/test_parser.py", "content": "x"}, "ok")]
    second = summary_message("S2", second_old, [{"content": "docs", "status": "in_progress"}])["content"]
    assert "Files changed so far: parser.py, tests/test_parser.py" in second
    assert "Files read so far: lexer.py" in second
    assert "- [in_progress] docs" in second
    assert second.endswith("The user's latest request, verbatim:\nrefactor the parser")


def test_a_session_resumed_over_the_limit_is_compacted_before_its_first_request(small_window, project, server):
    t = Transcript(project / ".axon", "20240101-000000-big000")
    t.append({"role": "system", "content": "old system prompt"})
    for i in range(12):
        t.meta("turn", n=i + 1)
        t.append({"role": "user", "content": f"turn {i}"})
        t.append({"role": "assistant", "content": None, "tool_calls": [_call(f"c{i}", "bash", {"command": "x"})]})
        t.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"log {i} " + "y" * 3000})
        t.append({"role": "assistant", "content": f"answer {i}"})
    server.add(*[_route] * 5)
    rt = _session(small_window, project, resume="20240101-000000-big")
    try:
        rt.agent.run("and now?", max_turns=1)
    finally:
        rt.close()
    main = [r for r in server.requests if r.body.get("tools")]
    assert _prompt_tokens(main[0].body) <= WINDOW * 0.8
    assert main[0].messages[0]["content"] != "old system prompt"      # refreshed for this run
    assert main[0].conversation[-1] == {"role": "user", "content": "and now?"}
    assert_paired(main[0].messages)
