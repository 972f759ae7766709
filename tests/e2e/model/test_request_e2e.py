"""The request itself, as the endpoint receives it from the real ``axon run``: the path, the API key
as a bearer token, and the body axon built (messages and tools at the top level, nothing of the
SDK's own helpers), streaming and not."""

from __future__ import annotations

from tests.conftest import TEST_KEY
from tests.fakeserver import Reply, text_reply


def test_the_endpoint_gets_the_key_and_the_body_axon_built(server, run_axon, project):
    server.add(Reply(empty_stream=True), text_reply("plain"))     # the second request is not streamed
    r = run_axon("run", "hi")
    assert r.code == 0, r.stderr
    assert r.stdout == "plain\n"
    assert len(server.requests) == 2
    for request, streamed in zip(server.requests, (True, False), strict=True):
        assert request.path.endswith("/chat/completions")
        headers = {k.lower(): v for k, v in request.headers.items()}
        assert headers["authorization"] == f"Bearer {TEST_KEY}"
        body = request.body
        assert body["model"] == "test-model" and body["stream"] is streamed
        last = body["messages"][-1]
        assert body["messages"][0]["role"] == "system" and last["role"] == "user" and last["content"].endswith("hi")
        assert {t["function"]["name"] for t in body["tools"]} >= {"read_file", "bash"}
        assert "extra_body" not in body
