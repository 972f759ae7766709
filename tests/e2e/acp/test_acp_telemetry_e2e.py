"""``axon acp`` with telemetry on (``OTEL_EXPORTER_OTLP_ENDPOINT``): two sessions in one process, driven
by the SDK's real client, each exported as its own span tree to a local OTLP/HTTP collector, with
token attributes and no content."""

from __future__ import annotations

import json
from pathlib import Path

from acp import text_block
from acp.schema import ClientCapabilities

from tests.e2e.acp.client import RecordingClient, open_axon
from tests.e2e.acp.test_acp_e2e import _run
from tests.e2e.telemetry.collector import Collector
from tests.fakeserver import ScriptedServer, text_reply, tool_reply

CONTENT = "acp-content-canary-3f9b"


def test_two_acp_sessions_export_one_span_tree_each(project: Path, server: ScriptedServer,
                                                     axon_env: dict[str, str], tmp_path: Path) -> None:
    (project / "notes.txt").write_text(f"{CONTENT}\n")
    first, second = tool_reply(("read_file", {"path": "notes.txt"})), text_reply("read it")
    third = text_reply("hello")
    for reply, prompt in ((first, 900), (second, 1000), (third, 700)):
        reply.usage = {"prompt_tokens": prompt, "completion_tokens": 9, "total_tokens": prompt + 9}
    server.add(first, second, third)
    collector = Collector()
    env = dict(axon_env, OTEL_EXPORTER_OTLP_ENDPOINT=collector.url)
    client = RecordingClient()
    ids: list[str] = []

    async def drive() -> None:
        async with open_axon(client, project, env, tmp_path / "stderr.txt") as conn:
            await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
            for words in ("read notes.txt", "say hello"):
                session = await conn.new_session(cwd=str(project), mcp_servers=[])
                ids.append(str(session.session_id))
                await conn.prompt(session_id=session.session_id, prompt=[text_block(words)])

    try:
        _run(drive())                  # the process has exited: its spans were flushed on the way out
        spans = collector.spans()
    finally:
        collector.close()
    roots = {s.attributes["axon.session.id"]: s for s in spans if s.name == "axon.session"}
    assert sorted(roots) == sorted(ids)
    assert roots[ids[0]].trace_id != roots[ids[1]].trace_id and all(r.parent_id == b"" for r in roots.values())
    for session_id, requests, calls in ((ids[0], [900, 1000], ["read_file"]), (ids[1], [700], [])):
        tree = [s for s in spans if s.trace_id == roots[session_id].trace_id]
        (turn,) = [s for s in tree if s.name == "invoke_agent axon"]
        assert turn.parent_id == roots[session_id].span_id
        below = [s for s in tree if s.parent_id == turn.span_id]
        assert sorted(s.attributes["gen_ai.usage.input_tokens"] for s in below
                      if s.name.startswith("chat ")) == requests
        assert [s.attributes["axon.tool.name"] for s in below if s.name.startswith("execute_tool ")] == calls
    everything = json.dumps([s.attributes for s in spans])
    assert CONTENT not in everything and "notes.txt" not in everything
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()
