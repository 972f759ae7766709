"""A repository prepared to crash axon, through the real ``axon run`` in an untrusted folder: each
hostile file gives the documented exit code and one line naming it (or the run goes on), never a
traceback; a file name that is not UTF-8 is listed, searched and written to the transcript."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fakeserver import text_reply, tool_reply

DEEP = 50_000
DEEP_TOML = "x = " + "[" * DEEP + "]" * DEEP + "\n"
DEEP_JSON = "[" * DEEP + "]" * DEEP


def _plant(rel: str, data: bytes | str, home: bool = False) -> Callable[[Path], Path]:
    def plant(project: Path) -> Path:
        path = (project.parent / "home" / rel) if home else project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return path
    return plant


FATAL = {   # the run stops before any request: exit 1, one line naming the file
    "config-not-utf8": _plant(".axon/config.toml", b'model = "\xff\xfe"\n'),
    "config-deep": _plant(".axon/config.toml", DEEP_TOML),
    "config-huge-value": _plant(".axon/config.toml", 'model = ["' + "m" * 3_000_000 + '"]\n'),
    "permissions-deep": _plant(".axon/permissions.toml", "allow = " + "[" * DEEP + "]" * DEEP + "\n"),
    "permissions-not-utf8": _plant(".axon/permissions.toml", b'allow = ["bash(\xff)"]\n'),
    "permissions-multiline-rule": _plant(".axon/permissions.toml", 'deny = ["bash(ls\\nrm -rf /)"]\n'),
    "user-config-not-utf8": _plant(".config/axon/config.toml", b"\xff = 1\n", home=True),
    "user-config-nul": _plant(".config/axon/config.toml", b"model = 'a\x00b'\n", home=True),
}
PROCEEDS = {   # reported (or ignored) and the run goes on
    "mcp-json-deep": _plant(".mcp.json", DEEP_JSON),
    "mcp-json-not-utf8": _plant(".mcp.json", b'{"mcpServers": {"\xff": {}}}'),
    "mcp-json-bom-wrong-types": _plant(".mcp.json", '\ufeff{"mcpServers": {"a\\nb": {"command": [1]}}}'),
    "agents-md-binary": _plant("AGENTS.md", b"\xff\xfe\x00" * 1000),
    "command-deep-front-matter": _plant(".axon/commands/x.md", "---\ndescription: " + "[" * DEEP + "\n---\nhi"),
    "agent-not-utf8": _plant(".axon/agents/x.md", b"---\nmax_turns: \xff\n---\nhi"),
}


def _one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr[-3000:]
    return lines[0]


@pytest.mark.parametrize("name", sorted(FATAL))
def test_a_broken_settings_file_is_one_line_and_exit_1(server, run_axon, project: Path, name: str) -> None:
    path = FATAL[name](project)
    r = run_axon("run", "hi")
    assert "Traceback" not in r.stderr and r.code == 1, r.stderr[-3000:]
    line = _one_error_line(r.stderr)
    shown = (str(path), os.path.relpath(path, project))           # the project's files are shown relative
    assert line.startswith(tuple(f"axon: error: {name}: " for name in shown)) and len(line) < 600, line
    assert server.requests == []


@pytest.mark.parametrize("name", sorted(PROCEEDS))
def test_a_broken_extension_file_is_reported_and_the_run_goes_on(server, run_axon, project: Path, name: str) -> None:
    path = PROCEEDS[name](project)
    server.add(text_reply("fine"))
    r = run_axon("run", "hi", "--output-format", "json")
    assert "Traceback" not in r.stderr and r.code == 0, r.stderr[-3000:]
    assert json.loads(r.stdout)["result"] == "fine" and len(server.requests) == 1
    for line in r.stderr.splitlines():
        assert len(line) < 600, line
    about = [line for line in r.stderr.splitlines() if path.name in line]
    assert len(about) <= 1, r.stderr


def test_a_hostile_transcript_is_resumed_without_its_bad_lines(server, run_axon, project: Path) -> None:
    sessions = project / ".axon" / "sessions"
    sessions.mkdir(parents=True)
    lines = [b'{"type": "meta", "kind": "session", "started": "2025-01-01T00:00:00"}',
             b'{"role": "user", "content": "first question"}', b'{"role": "tool", "content": 5}',
             b'{"role": "assistant", "tool_calls": 7}', b"[" * DEEP, b'{"type": "meta", "kind": "turn", "n": [1]}',
             b'{"type": "meta", "kind": "todos", "todos": 3}', b"\xff\xfe not json",
             b'{"role": "assistant", "content": "first answer"}']
    (sessions / "20250101-000000-abcdef.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    server.add(text_reply("resumed"))
    r = run_axon("run", "next", "--continue")
    assert "Traceback" not in r.stderr and r.code == 0, r.stderr[-3000:]
    sent = [m for m in server.requests[0].conversation if m["role"] != "system"]
    assert [m.get("content") for m in sent] == ["first question", "first answer", "next"]


def _bad_name(project: Path) -> None:
    with open(os.path.join(os.fsencode(project), b"bad\xff\xfename.txt"), "wb") as fh:
        fh.write(b"needle inside\n")


def _transcript_records(project: Path) -> list[dict]:
    files = list((project / ".axon" / "sessions").glob("*.jsonl"))
    assert len(files) == 1
    return [json.loads(line) for line in files[0].read_bytes().decode("utf-8").splitlines()]  # strict UTF-8


def test_a_file_name_that_is_not_utf8_is_listed_searched_and_recorded(server, run_axon, project: Path) -> None:
    _bad_name(project)
    server.add(tool_reply(("list_files", {}), ("search_files", {"pattern": "needle"})), text_reply("done"))
    r = run_axon("run", "look", "--yes")
    assert "Traceback" not in r.stderr and r.code == 0, r.stderr[-3000:]
    results = [m["content"] for m in server.requests[1].messages if m["role"] == "tool"]
    assert results[0] == "bad\\xff\\xfename.txt"
    assert results[1] == "bad\\xff\\xfename.txt:1: needle inside"
    records = _transcript_records(project)
    assert [m["content"] for m in records if m.get("role") == "tool"] == results
    audit = (project / ".axon" / "audit.jsonl").read_bytes().decode("utf-8").splitlines()
    assert sorted(json.loads(line)["tool"] for line in audit) == ["list_files", "search_files"]   # ran at once


@pytest.mark.parametrize("fmt", ["text", "json", "stream-json"])
def test_lone_surrogates_from_the_model_are_carried_escaped(server, run_axon, project: Path, fmt: str) -> None:
    server.add(tool_reply(("read_file", {"path": "x\ud800y"}), ("list_files", {"path": "\udcff"})),
               text_reply("answer \udcff \ud800"))
    r = run_axon("run", "go", "--output-format", fmt)
    assert "Traceback" not in r.stderr and r.code == 0, r.stderr[-3000:]
    assert len(server.requests) == 2
    if fmt == "json":
        assert json.loads(r.stdout)["result"] == "answer \udcff \ud800"
    elif fmt == "stream-json":
        assert all(isinstance(json.loads(line), dict) for line in r.stdout.splitlines())
    assert len(_transcript_records(project)) >= 4
