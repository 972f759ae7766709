"""End-to-end: the real ``axon`` and the real demo MCP server (tests/mcp_servers/demo_server.py):
names and rules, roots, elicitation, pictures, restarts. Each test asserts on what the server
received (its own log, DEMO_LOG) or on what the scripted model was sent."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

from tests.e2e.mcp.test_mcp_e2e import DEMO, TRUSTED, tool_messages, write_mcp_json
from tests.fakeserver import text_reply, tool_reply

PIXEL = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==")


def demo(project: Path, **env: str) -> Path:
    """A .mcp.json starting the demo server as 'test', logging to a file; the log's path."""
    log = project.parent / "demo-log.jsonl"
    write_mcp_json(project, test={"command": sys.executable, "args": [DEMO], "env": {"DEMO_LOG": str(log), **env}})
    return log


def events(log: Path, kind: str) -> list[dict[str, Any]]:
    lines = log.read_text().splitlines() if log.exists() else []
    return [e for e in map(json.loads, lines) if e["event"] == kind]


def activate(*names: str) -> Any:
    return tool_reply(("tool_search", {"query": "select:" + ",".join(names)}))


def test_rules_name_mcp_tools_the_claude_code_way(server, run_axon, project):
    demo(project)
    (project / ".axon").mkdir()
    (project / ".axon" / "permissions.toml").write_text(
        'allow = ["mcp__test", "test__echo"]\ndeny = ["mcp__test__leak_secret"]\n')
    server.add(activate("mcp__test__add", "mcp__test__leak_secret", "mcp__test__echo"),
               tool_reply(("mcp__test__add", {"a": 2, "b": 3}), ("mcp__test__leak_secret", {}),
                          ("mcp__test__echo", {"text": "old rule"})),
               text_reply("done"))
    r = run_axon("run", "use them", env=TRUSTED, timeout=90)      # no --yes: only rules allow
    assert r.code == 0, r.stderr
    results = tool_messages(server.requests[2].messages)
    assert results["call_2_0"] == "5"                               # mcp__test covers every tool of the server
    assert results["call_2_1"].startswith("Permission denied")      # mcp__test__leak_secret: that one tool
    assert results["call_2_2"] == "old rule"                        # the old SERVER__TOOL spelling still counts
    assert {"mcp__test__add", "mcp__test__echo"} <= set(server.requests[1].offered)


def test_a_rule_for_an_unconfigured_server_is_reported(run_axon, project):
    demo(project)
    (project / ".axon").mkdir()
    (project / ".axon" / "permissions.toml").write_text('allow = ["mcp__ghost", "mcp__test__nosuch"]\n')
    shown = run_axon("permissions", env=TRUSTED)
    assert shown.code == 0, shown.stderr
    notes = [ln for ln in shown.stdout.splitlines() if ln.startswith("note:")]
    assert len(notes) == 1 and '"mcp__ghost"' in notes[0] and "'ghost'" in notes[0]
    doctor = run_axon("doctor", env=TRUSTED, timeout=90)
    flagged = [ln for ln in doctor.stdout.splitlines() if ln.startswith("mcp:") and "matches nothing" in ln]
    assert len(flagged) == 2 and any('"mcp__test__nosuch"' in ln for ln in flagged), doctor.stdout


def test_hook_matcher_sees_the_mcp_name(server, run_axon, project):
    demo(project)
    seen = project.parent / "hook-input.json"
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text(
        f'[[hooks.PreToolUse]]\nmatcher = "mcp__.*"\ncommand = "cat > {seen}"\n')
    server.add(activate("mcp__test__add"), tool_reply(("mcp__test__add", {"a": 1, "b": 1})), text_reply("ok"))
    r = run_axon("run", "add", "--yes", env=TRUSTED, timeout=90)
    assert r.code == 0, r.stderr
    assert json.loads(seen.read_text())["tool_name"] == "mcp__test__add"


def test_roots_are_the_project_folder(server, run_axon, project):
    log = demo(project)
    server.add(activate("mcp__test__roots"), tool_reply(("mcp__test__roots", {})), text_reply("ok"))
    r = run_axon("run", "which roots", "--yes", env=TRUSTED, timeout=90)
    assert r.code == 0, r.stderr
    assert events(log, "roots") == [{"event": "roots", "uris": [project.resolve().as_uri()]}]
    assert tool_messages(server.requests[2].messages)["call_2_0"] == project.resolve().as_uri()


def test_elicitation_is_declined_headless(server, run_axon, project):
    log = demo(project)
    server.add(activate("mcp__test__ask_name"), tool_reply(("mcp__test__ask_name", {})), text_reply("ok"))
    r = run_axon("run", "greet me", "--yes", "--output-format", "stream-json", env=TRUSTED, timeout=90)
    assert r.code == 0, r.stderr
    assert events(log, "elicit") == [{"event": "elicit", "action": "decline", "data": None}]
    assert tool_messages(server.requests[2].messages)["call_2_0"] == "no name (decline)"
    notices = [e["message"] for e in map(json.loads, r.stdout.splitlines()) if e["type"] == "notice"]
    assert any("MCP server 'test'" in n and "declined" in n for n in notices)


def _image_parts(messages: list[dict[str, Any]]) -> list[bytes]:
    out = []
    for m in messages:
        if m.get("role") == "user" and isinstance(m.get("content"), list):
            for part in m["content"]:
                if part["type"] == "image_url":
                    head, _, data = part["image_url"]["url"].partition(",")
                    assert head == "data:image/png;base64"
                    out.append(base64.b64decode(data))
    return out


def test_pictures_reach_a_model_that_takes_images(server, run_axon, project):
    demo(project)
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text('images = "on"\n')
    server.add(activate("mcp__test__image", "mcp__test__resource_image"),
               tool_reply(("mcp__test__image", {}), ("mcp__test__resource_image", {})), text_reply("seen"))
    r = run_axon("run", "look", "--yes", env=TRUSTED, timeout=90)
    assert r.code == 0, r.stderr
    sent = server.requests[2].messages
    assert _image_parts(sent) == [PIXEL, PIXEL]                  # the image block and the embedded resource
    results = tool_messages(sent)
    assert results["call_2_0"].startswith("a red pixel\n[image 1: image/png, 70 bytes]")
    roles = [m["role"] for m in sent]
    assert roles[-3:] == ["tool", "tool", "user"]                # the pictures follow the results


def test_pictures_become_a_placeholder_for_a_text_model(server, run_axon, project):
    demo(project)
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text('images = "off"\n')
    server.add(activate("mcp__test__image"), tool_reply(("mcp__test__image", {})), text_reply("ok"))
    r = run_axon("run", "look", "--yes", env=TRUSTED, timeout=90)
    assert r.code == 0, r.stderr
    sent = server.requests[2].messages
    assert _image_parts(sent) == []
    assert "not shown" in tool_messages(sent)["call_2_0"] and PIXEL.hex() not in json.dumps(sent)


def test_a_dead_server_is_started_again_a_bounded_number_of_times(server, run_axon, project):
    log = demo(project)
    (project / ".axon").mkdir()
    (project / ".axon" / "permissions.toml").write_text('allow = ["mcp__test"]\n')
    server.add(activate("mcp__test__crash", "mcp__test__add"))
    for i in range(3):
        server.add(tool_reply(("mcp__test__crash", {})), tool_reply(("mcp__test__add", {"a": i, "b": 10})))
    server.add(text_reply("done"))
    r = run_axon("run", "crash it", env=TRUSTED, timeout=120)
    assert r.code == 0, r.stderr
    adds = [tool_messages(server.requests[n].messages)[f"call_{n}_0"] for n in (3, 5, 7)]
    assert adds[:2] == ["10", "11"]                              # each call after a crash worked
    assert adds[2].startswith("Error:") and "not started again" in adds[2]
    assert len(events(log, "start")) == 3                        # the first start and two restarts, no more
