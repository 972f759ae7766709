"""End-to-end: the real ``axon`` with a ``.mcp.json`` that starts a real MCP server process."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from tests.fakeserver import text_reply, tool_reply

DEMO = str(Path(__file__).resolve().parents[2] / "mcp_servers" / "demo_server.py")
TRUSTED = {"AXON_TRUST": "1"}     # the servers under test are the user's own: their folder is trusted


def write_mcp_json(project: Path, **servers: dict[str, object]) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


def tool_messages(messages: list[dict[str, object]]) -> dict[str, str]:
    return {str(m["tool_call_id"]): str(m["content"]) for m in messages if m.get("role") == "tool"}


def test_mcp_tools_through_axon_run(server, run_axon, project):
    write_mcp_json(project, test={"command": sys.executable, "args": [DEMO]},
                   broken={"command": "no-such-command-axon-e2e"})
    server.add(tool_reply(("tool_search", {"query": "select:mcp__test__add,mcp__test__fail,mcp__test__leak_secret"})),
               tool_reply(("mcp__test__add", {"a": 2, "b": 3}), ("mcp__test__fail", {"reason": "nope"}),
                          ("mcp__test__leak_secret", {})),
               text_reply("all done"))
    r = run_axon("run", "use the mcp tools", "--yes", timeout=90, env=TRUSTED)
    assert r.code == 0, r.stderr
    assert r.stdout == "all done\n"
    assert "note: MCP server 'broken' failed: command not found: no-such-command-axon-e2e" in r.stderr
    assert "Traceback" not in r.stderr

    first = server.requests[0]
    system = first.messages[0]["content"]
    assert "- mcp__test__add: Add two integers and return the sum." in system
    assert "mcp__test__add" not in first.tool_names              # deferred: not sent until activated
    add = server.requests[1].offered["mcp__test__add"]                # activated: offered from then on
    assert add["parameters"]["required"] == ["a", "b"]

    results = tool_messages(server.requests[2].messages)
    assert results["call_2_0"] == "5"
    assert results["call_2_1"].startswith("Error:") and "nope" in results["call_2_1"]
    assert "[REDACTED]" in results["call_2_2"] and "sk-proj-" not in results["call_2_2"]
    transcript = "".join(p.read_text() for p in (project / ".axon" / "sessions").glob("*.jsonl"))
    assert "sk-proj-" not in transcript


def test_broken_server_only_still_answers(server, run_axon, project):
    write_mcp_json(project, broken={"command": "no-such-command-axon-e2e"})
    server.add(text_reply("fine"))
    r = run_axon("run", "hi", "--output-format", "stream-json", env=TRUSTED)
    assert r.code == 0, r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines()]
    notices = [e["message"] for e in events if e["type"] == "notice"]
    assert notices == ["MCP server 'broken' failed: command not found: no-such-command-axon-e2e"]
    assert events[0]["type"] == "session_started" and events[-1]["type"] == "turn_complete"


def test_mcp_list_command(run_axon, project):
    write_mcp_json(project, test={"command": sys.executable, "args": [DEMO]},
                   broken={"command": "no-such-command-axon-e2e"})
    r = run_axon("mcp", "list", env=TRUSTED)
    assert r.code == 0, r.stderr
    out = r.stdout
    assert "test  (stdio: " in out and "configured in: .mcp.json" in out
    assert "status: connected, 11 tools" in out
    assert re.search(r"^    mcp__test__add +Add two integers and return the sum\.$", out, re.M)
    assert re.search(r"^    mcp__test__echo +Echo the text back unchanged\. \(read-only\)$", out, re.M)
    assert "status: failed: command not found: no-such-command-axon-e2e" in out
    assert "Traceback" not in r.stderr + out


def test_mcp_list_over_streamable_http_from_config(run_axon, project, http_server):
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text(f'[mcp_servers.web]\nurl = "{http_server}"\n')
    r = run_axon("mcp", "list", env=TRUSTED)
    assert r.code == 0, r.stderr
    assert f"web  (http: http {http_server})" in r.stdout
    assert "configured in: .axon/config.toml" in r.stdout
    assert "status: connected, 11 tools" in r.stdout and "mcp__web__add" in r.stdout
