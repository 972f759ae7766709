"""The ``bash`` tool through the real ``axon run --yes`` against the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import TEST_KEY
from tests.fakeserver import text_reply, tool_reply


def tool_message(server, i: int = 1) -> dict:  # type: ignore[no-untyped-def]
    msg = server.requests[i].messages[-1]
    assert msg["role"] == "tool"
    return msg


def test_bash_result_reaches_the_model_with_exit_code(server, run_axon, project: Path) -> None:
    server.add(tool_reply(("bash", {"command": "echo out; echo err >&2; exit 2"})), text_reply("done"))
    r = run_axon("run", "go", "--yes")
    assert r.code == 0, r.stderr
    assert tool_message(server)["content"] == "out\nerr\nexit code 2"
    (rec,) = [json.loads(line) for line in (project / ".axon" / "audit.jsonl").read_text().splitlines()]
    assert rec["tool"] == "bash" and rec["input"] == {"command": "echo out; echo err >&2; exit 2"}
    assert rec["decision"] == "allow" and rec["error"] is None
    assert (project / ".axon" / ".gitignore").exists()


def test_axon_key_is_not_in_the_command_env_and_is_masked(server, run_axon, project: Path) -> None:
    server.add(tool_reply(("bash", {"command": f"echo key=$OPENAI_API_KEY; echo literal {TEST_KEY}"})),
               text_reply("done"))
    r = run_axon("run", "go", "--yes")
    assert r.code == 0, r.stderr
    content = tool_message(server)["content"]
    assert content == "key=\nliteral [REDACTED]\nexit code 0"
    state = project / ".axon"
    assert TEST_KEY not in (state / "audit.jsonl").read_text()
    (transcript,) = list((state / "sessions").glob("*.jsonl"))
    assert TEST_KEY not in transcript.read_text() and "[REDACTED]" in transcript.read_text()


def test_timeout_through_axon_run(server, run_axon) -> None:
    server.add(tool_reply(("bash", {"command": "echo started; sleep 30", "timeout": 1})), text_reply("done"))
    r = run_axon("run", "go", "--yes", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    assert tool_message(server)["content"] == "started\ntimed out after 1 s, process group killed"
    ends = [e for e in map(json.loads, r.stdout.splitlines()) if e["type"] == "tool_call_end"]
    assert len(ends) == 1 and ends[0]["ok"] is False and ends[0]["summary"] == "timed out after 1 s"


def test_large_output_is_bounded_and_spilled(server, run_axon, project: Path) -> None:
    server.add(tool_reply(("bash", {"command": "seq 1 100000"})), text_reply("done"))
    r = run_axon("run", "go", "--yes")
    assert r.code == 0, r.stderr
    content = tool_message(server)["content"]
    assert content.startswith("1\n2\n3\n") and "chars truncated …]" in content
    assert "99999\n100000\nexit code 0\n[full output (588895 bytes) saved to .axon/tool-results/" in content
    (spilled,) = list((project / ".axon" / "tool-results").iterdir())
    assert spilled.read_text().splitlines()[-1] == "100000"


def test_new_secret_kinds_are_masked_through_cat_and_read_file(server, run_axon, project: Path) -> None:
    npm, grid = "npm_" + "Z9y8X7w6" * 4 + "Abcd", "SG." + "Qx" * 11 + "." + "Wv3" * 14 + "T"
    azure = "Tm90QVJlYWxLZXk" * 6 + "AAA=="
    (project / "creds.txt").write_text(f"//registry.npmjs.org/:_authToken={npm}\nSENDGRID={grid}\n"
                                       f"AccountName=prod;AccountKey={azure};EndpointSuffix=core.windows.net\n")
    server.add(tool_reply(("bash", {"command": "cat creds.txt"})), tool_reply(("read_file", {"path": "creds.txt"})),
               text_reply("done"))
    r = run_axon("run", "go", "--yes")
    assert r.code == 0, r.stderr
    for i in (1, 2):
        content = tool_message(server, i)["content"]
        assert content.count("[REDACTED]") >= 3, content
        assert npm not in content and grid[:20] not in content and azure[:40] not in content
