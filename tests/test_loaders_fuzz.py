"""Every loader of a file someone else may have written, fed random and hostile bytes: invalid
UTF-8, NUL, a byte order mark, nesting 50,000 deep, huge strings and numbers, wrong types. Only
axon's own error (``ConfigError``, one line naming the file) or success may come out; the loaders
that report problems as lines (``.mcp.json``, commands, agents, the trust record, transcripts,
the audit log) must not raise at all."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from axon_cli.kernel.errors import ConfigError
from axon_cli.kernel.loaders import MAX_CONFIG_BYTES, json_prefix, json_value, load_json, load_toml
from axon_cli.kernel.prompts.frontmatter import FrontMatterError, split_front_matter
from axon_cli.policy.rules import load_rules
from axon_cli.session.conversation.context import instructions_block
from axon_cli.session.conversation.transcript import list_sessions, load_transcript
from axon_cli.session.extend.agents import load_agents
from axon_cli.session.extend.commands import load_commands
from axon_cli.settings.config import load_settings
from axon_cli.settings.mcp_servers import read_mcp_json
from axon_cli.settings.trust.folder import FolderTrust, read_source
from axon_cli.settings.trust.items import TrustEverything
from axon_cli.settings.trust.trust_record import TrustStore
from axon_cli.tools.audit import AuditLog
from tests.budget import examples

DEEP = 50_000
FRAGMENTS = [
    b"\xff\xfe", b"\x00", b"\xef\xbb\xbf", b"\xc3\x28", b"\xed\xa0\x80", b"\n", b"\r\n", b" ", b"=", b":", b",",
    b"[" * DEEP, b"]" * DEEP, b"{" * DEEP, b'{"a":' * DEEP, b"x = " + b"[" * DEEP, b"a = {b = " * 200,
    b"1" * 5000, b"1e999999", b"-", b"---\n", b"---", b'"', b"'", b"\\", b"\\u0000", b"\\ud800",
    b'mode = "yolo"\n', b"mode = 5\n", b'allow = "bash(ls)"\n', b"allow = [1, [2], {a = 3}]\n",
    b'allow = ["bash(ls\nrm)"]\n', b"[mcp_servers.a]\ncommand = 5\n", b"hooks = 3\n",
    b"[[hooks.PreToolUse]]\ncommand = ''\n", b'model = "' + b"m" * 300_000 + b'"\n', b"max_turns = -1\n",
    b"sandbox_hide = [[[[]]]]\n", b'{"mcpServers": {"a": 5}}', b'{"mcpServers": []}', b"null", b"[]", b'"x"',
    b'{"mcpServers": {"a": {"command": ["x"], "env": {"K": [1]}}}}', b'{"version": 1, "folders": {"/": 5}}',
    b'{"role": "tool", "content": 5}', b'{"role": "assistant", "tool_calls": 7}', b'{"type": "meta", "kind": "turn", "n": "x"}',
    b'{"type": "meta", "kind": "usage", "prompt_tokens": [1]}', b'{"type": "meta", "kind": "todos", "todos": 3}',
    b"description: \xff\n", b"max_turns: 99999999999999999999\n", b"tools: [a, [b, (c]\n", b"allowed-tools: bash(\n",
]
# Always tried (as explicit examples), besides what hypothesis draws.
KNOWN = [b"[" * DEEP + b"]" * DEEP, b"x = " + b"[" * DEEP + b"]" * DEEP, b'{"a":' * DEEP + b"1" + b"}" * DEEP,
         b'model = "\xff\xfe"\n', b"\xef\xbb\xbfmode = 'default'\n", b"a = 1\x00\n", b"x = " + b"9" * 5000,
         b'{"mcpServers": ' * 40 + b"{}" + b"}" * 40, b'"' + b"s" * 2_000_000 + b'"']
HOSTILE = st.one_of(st.sampled_from(KNOWN), st.binary(max_size=600),
                    st.lists(st.sampled_from(FRAGMENTS), max_size=6).map(b"".join))
FUZZ = settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow,
                                                                       HealthCheck.data_too_large])


def known_examples(test: Callable[..., None]) -> Callable[..., None]:
    for data in KNOWN:
        test = example(data=data)(test)
    return test


def _only_config_error(call: Callable[[], Any], path: Path | None = None) -> None:
    try:
        call()
    except ConfigError as e:
        message = str(e)
        assert "\n" not in message and len(message) < 2000, message
        assert path is None or str(path) in message or path.name in message, message


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    return tmp_path / "proj"


@FUZZ
@given(HOSTILE)
@known_examples
def test_toml_and_json_loaders(root: Path, data: bytes) -> None:
    path = _write(root / "f", data)
    _only_config_error(lambda: load_toml(path), path)
    _only_config_error(lambda: load_json(path), path)


@FUZZ
@given(HOSTILE, st.sampled_from(["project-config", "user-config", "project-permissions", "user-permissions"]))
def test_settings_and_permission_files(root: Path, data: bytes, which: str) -> None:
    user = root.parent / "config" / "axon"
    paths = {"project-config": root / ".axon" / "config.toml", "user-config": user / "config.toml",
             "project-permissions": root / ".axon" / "permissions.toml", "user-permissions": user / "permissions.toml"}
    for other in paths.values():                  # one hostile file at a time (examples share the folder)
        other.unlink(missing_ok=True)
    path = _write(paths[which], data)
    _only_config_error(lambda: load_settings(root, env={}), path)
    _only_config_error(lambda: load_rules(root, user), path)
    FolderTrust(root).assess()                    # what `axon trust` shows: never raises


@FUZZ
@given(HOSTILE)
@known_examples
def test_claude_settings_of_a_project_are_a_notice_and_the_users_one_config_error(root: Path, data: bytes) -> None:
    project_file = _write(root / ".claude" / "settings.json", data)
    loaded = load_settings(root, env={})                       # a project's file never stops axon
    assert all("\n" not in n for n in loaded.notices), loaded.notices
    project_file.unlink()
    user_file = _write(root.parent / "home" / ".claude" / "settings.json", data)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(root.parent / "home"))
        _only_config_error(lambda: load_settings(root, env={}), user_file)


@FUZZ
@given(HOSTILE)
@known_examples
def test_arriving_json_is_a_value_or_one_value_error(data: bytes) -> None:
    for parse in (lambda: json_value(data), lambda: json_value(data.decode("utf-8", "replace")),
                  lambda: json_prefix(data.decode("utf-8", "replace"))):
        try:
            parse()
        except ValueError as e:
            assert "\n" not in str(e).strip(), e


@FUZZ
@given(HOSTILE)
@known_examples
def test_mcp_json_is_reported_never_raised(root: Path, data: bytes) -> None:
    path = _write(root / ".mcp.json", data)
    _entries, problems = read_mcp_json(path, lambda d: d)
    assert all("\n" not in p for p in problems), problems
    assert isinstance(read_source(root, ".mcp.json"), dict)
    FolderTrust(root).assess()


@FUZZ
@given(HOSTILE)
@known_examples
def test_trust_record_is_reported_never_raised(root: Path, data: bytes) -> None:
    store = TrustStore(_write(root.parent / "state" / "trust.json", data))
    record, problem = store.folder(root)
    assert isinstance(record, dict) and (problem is None or "\n" not in problem)
    store.folders()


@FUZZ
@given(st.lists(HOSTILE, max_size=4))
def test_transcripts_and_audit_log_skip_what_they_cannot_use(root: Path, lines: list[bytes]) -> None:
    data = b"\n".join(lines)
    path = _write(root / ".axon" / "sessions" / "s1.jsonl", data)
    loaded = load_transcript(path)
    for message in loaded.messages:
        json.dumps(message)                       # what the model would be sent: plain JSON values
    list_sessions(root / ".axon")
    _write(root / ".axon" / "audit.jsonl", data)
    assert all(isinstance(r, dict) for r in AuditLog(root / ".axon", "s").read())


@FUZZ
@given(HOSTILE)
@known_examples
def test_markdown_files_commands_agents_and_instructions(root: Path, data: bytes) -> None:
    try:
        split_front_matter(data.decode("utf-8", "replace"))
    except FrontMatterError as e:
        assert "\n" not in str(e)
    _write(root / ".axon" / "commands" / "c.md", data)
    _write(root / ".axon" / "agents" / "a.md", data)
    _write(root / "AGENTS.md", data)
    load_commands(root, TrustEverything())
    load_agents(root)
    instructions_block(root)


@pytest.mark.parametrize("name", [".axon/config.toml", ".axon/permissions.toml"])
def test_an_oversized_settings_file_is_one_line(root: Path, name: str) -> None:
    path = _write(root / name, b"# " + b"x" * (MAX_CONFIG_BYTES + 10) + b"\n")
    with pytest.raises(ConfigError) as err:
        load_settings(root, env={}) if "config" in name else load_rules(root, root.parent / "config" / "axon")
    assert str(err.value) == f"{path}: larger than {MAX_CONFIG_BYTES // 1024} KiB; not read"
