"""Compaction when the summary fails: old tool output elided, the oldest turns dropped (a tool call
kept with its results), every request under the window — through the real ``axon run``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from axon_cli.session.conversation.compaction import drop_oldest, elide
from axon_cli.session.conversation.compaction_text import approx_tokens
from tests.fakeserver import Reply, text_reply, tool_reply
from tests.session.test_compaction import _exchange, assert_paired

WINDOW = 6000
FILES = 12


def _prompt_tokens(body: dict[str, Any]) -> int:
    return len(json.dumps(body.get("messages", []))) // 4 + len(json.dumps(body.get("tools", []))) // 4


def _router(summary: str):
    reads = iter(range(FILES + 1))

    def route(body: dict[str, Any]) -> Reply:
        if not body.get("tools"):                  # a summary request
            return text_reply(summary)
        n = next(reads)
        return tool_reply(("read_file", {"path": f"f{n:02}.txt"})) if n < FILES else text_reply("read them all")
    return route


@pytest.mark.parametrize("summary", ["", "Summary: the task is to read twelve files; eleven are read."])
def test_twelve_large_reads_stay_under_the_window(server, run_axon, project, summary):
    for n in range(FILES):
        (project / f"f{n:02}.txt").write_text("".join(f"file {n} line {i:03} " + "z" * 80 + "\n"
                                                      for i in range(100)))    # ~10 kB each
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text(f"context_window = {WINDOW}\n")
    server.add(*[_router(summary)] * 60)
    r = run_axon("run", "read f00.txt to f11.txt, one by one", "--max-turns", "20",
                 "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines()]
    assert events[-1]["result"] == "read them all"
    main = [q for q in server.requests if q.body.get("tools")]
    assert len(main) == FILES + 1
    sizes = [_prompt_tokens(q.body) for q in main]
    assert max(sizes) < WINDOW, sizes
    for q in main:
        assert_paired(q.messages)
    latest = main[-1].messages[-1]["content"]
    assert "file 11 line 000" in latest and "file 11 line 099" in latest    # the latest result is whole
    notices = [e["message"] for e in events if e["type"] == "notice"]
    dropped = [n for n in notices if "dropped the" in n]
    if summary:
        assert not dropped
    else:
        assert dropped and any("could not summarise" in n for n in notices)
        last = main[-1].messages
        note = next(m["content"] for m in last if "could not summarise the older conversation" in
                    str(m.get("content")))
        assert "read f00.txt to f11.txt, one by one" in note and "Files read so far: f00.txt" in note


def test_drop_oldest_keeps_pairs_the_request_and_a_note():
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "s"}, {"role": "user", "content": "the task"}]
    for i in range(8):
        msgs += _exchange(f"c{i}", "read_file", {"path": f"f{i}.txt"}, "q" * 4000)
    slim, elided = elide(msgs, 500, keep_recent=1, protect_reads=False)
    out, dropped = drop_oldest(slim, 500, None)
    assert dropped > 0 and approx_tokens(out) <= 1500
    assert out[0] == msgs[0] and out[-1] == msgs[-1]
    assert "the task" in out[1]["content"] and "dropped" in out[1]["content"]
    assert_paired(out)
    assert drop_oldest(msgs[:2], 0, None) == (msgs[:2], 0)
