"""Where the server's context window cannot be asked, its context-overflow answer is the signal: an
HTTP 400 worded as llama.cpp, llama-cpp-python, vLLM or OpenAI word it leads to one compaction and
one retry of the request, through the real ``axon run --continue`` and the scripted server."""

from __future__ import annotations

import json

import pytest

from tests.fakeserver import Reply, error_reply, text_reply, tool_reply

OVERFLOWS = {
    "llama.cpp": {"error": {"code": 400, "type": "exceed_context_size_error",
                            "message": "request (17012 tokens) exceeds the available context size (16384 tokens), "
                                       "try increasing it"}},
    "llama-cpp-python": {"error": {"message": "Requested tokens (17012) exceed context window of 16384",
                                   "type": "invalid_request_error"}},
    "vllm": {"object": "error", "message": "This model's maximum context length is 16384 tokens. However, you "
             "requested 17012 tokens. Please reduce the length of the messages.", "type": "BadRequestError"},
    "openai": {"error": {"message": "Your messages resulted in 17012 tokens. Please reduce the length.",
                         "type": "invalid_request_error", "code": "context_length_exceeded"}},
}


def earlier_session(server, run_axon, project) -> None:
    """A first run whose history a compaction can shrink: three reads of a long file."""
    (project / "big.txt").write_text("line of text\n" * 400)
    for i in range(3):
        server.add(tool_reply(("read_file", {"path": "big.txt", "offset": i + 1})))
    server.add(text_reply("read it three times"))
    r = run_axon("run", "read big.txt three ways", "--output-format", "json")
    assert r.code == 0, r.stderr


@pytest.mark.parametrize("server_kind", sorted(OVERFLOWS))
def test_an_overflow_answer_compacts_and_retries_once(server, run_axon, project, server_kind: str) -> None:
    earlier_session(server, run_axon, project)
    before = len(server.requests)
    server.add(Reply(status=400, error_body=OVERFLOWS[server_kind]),
               text_reply("Task: read big.txt. Files: big.txt. Next steps: answer."),     # the summary
               text_reply("the answer after compaction"))
    r = run_axon("run", "--continue", "what did you find?", "--output-format", "json")
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout)["result"] == "the answer after compaction"
    first, retry = server.requests[before], server.requests[-1]
    assert len(server.requests) == before + 3
    assert len(json.dumps(retry.messages)) < len(json.dumps(first.messages))    # the retry is smaller
    assert retry.messages[-1]["content"].startswith("what did you find?")


def test_an_unrelated_400_is_not_taken_for_an_overflow(server, run_axon, project) -> None:
    earlier_session(server, run_axon, project)
    before = len(server.requests)
    server.add(error_reply(400, "unknown field: frobnicate"))
    r = run_axon("run", "--continue", "again", "--output-format", "json")
    assert r.code == 1 and "unknown field" in json.loads(r.stdout)["result"]
    assert len(server.requests) == before + 1                                    # no compaction, no retry
