"""The audit log through dispatch (one line per call, whatever happens) and ``.axon/.gitignore``."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from axon_cli.kernel.state import GITIGNORE, ensure_state_dir
from axon_cli.policy.base import Decision
from axon_cli.settings.config import Settings
from axon_cli.tools.audit import MAX_INPUT_STRING, AuditLog
from axon_cli.tools.dispatch import Dispatcher, ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext, ToolError, ToolSpec


class Args(BaseModel):
    text: str
    mode: str = "ok"


def handler(inp: Args, ctx: ToolContext) -> str:
    if inp.mode == "toolerror":
        raise ToolError("it went wrong")
    if inp.mode == "crash":
        raise RuntimeError("bug")
    return f"echo: {inp.text}"


class DenyDanger:
    def check(self, spec: Any, tool_input: Any, ctx: ToolContext, facts: Any = None) -> Decision:
        if getattr(tool_input, "mode", "") == "danger":
            return Decision("deny", "dangerous", 'deny rule "t(danger)" in test')
        return Decision("allow", "fine", "mode default")

    def remember(self, rule: str, scope: Any) -> str:
        return ""


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "proj"
    root.mkdir()
    return ToolContext(project_root=root, state_dir=root / ".axon", session_id="sess-42", settings=Settings())


@pytest.fixture
def dispatcher(ctx: ToolContext) -> Dispatcher:
    spec: ToolSpec[Args] = ToolSpec(name="t", description="test tool", input_model=Args, handler=handler,
                                    max_result_chars=1000)
    return Dispatcher(ToolRegistry([spec]), ctx, policy=DenyDanger())


def records(ctx: ToolContext) -> list[dict[str, Any]]:
    lines = (ctx.state_dir / "audit.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.parametrize("name, arguments, decision, error_part", [
    ("t", '{"text": "hi"}', "allow", None),
    ("t", '{"text": "hi", "mode": "toolerror"}', "allow", "it went wrong"),
    ("t", '{"text": "hi", "mode": "crash"}', "allow", "RuntimeError: bug"),
    ("t", '{"text": "hi", "mode": "danger"}', "deny", "Permission denied: dangerous"),
    ("nope", '{"text": "hi"}', "n/a", "unknown tool 'nope'"),
    ("t", '{"text": ', "n/a", "not valid JSON"),
    ("t", '{"mode": "ok"}', "n/a", "validation error"),
    ("t", "[1, 2]", "n/a", "must be a JSON object"),
])
def test_every_call_writes_exactly_one_line(dispatcher: Dispatcher, ctx: ToolContext, name: str, arguments: str,
                                            decision: str, error_part: str | None) -> None:
    r = dispatcher.dispatch(ToolCall("call_7", name, arguments))
    (rec,) = records(ctx)
    assert rec["call_id"] == "call_7" and rec["tool"] == name and rec["session_id"] == "sess-42"
    assert rec["decision"] == decision
    assert rec["result_chars"] == len(r.content) and rec["truncated"] is False
    assert isinstance(rec["duration_ms"], int) and rec["duration_ms"] >= 0
    assert rec["time"].endswith("+00:00") and "T" in rec["time"]
    if error_part is None:
        assert rec["error"] is None and r.ok and rec["decided_by"] == "mode default"
        assert rec["input"] == {"text": "hi"}
    else:
        assert error_part in rec["error"] and not r.ok
    if decision == "deny":
        assert rec["decided_by"] == 'deny rule "t(danger)" in test'


def test_cancelled_call_is_audited(dispatcher: Dispatcher, ctx: ToolContext) -> None:
    ctx.cancel.set()
    r = dispatcher.dispatch(ToolCall("c1", "t", '{"text": "x"}'))
    (rec,) = records(ctx)
    assert r.content == "Error: interrupted by user" and rec["error"] == "Error: interrupted by user"


def test_several_calls_append_in_order(dispatcher: Dispatcher, ctx: ToolContext) -> None:
    for i in range(5):
        dispatcher.dispatch(ToolCall(f"c{i}", "t", json.dumps({"text": str(i)})))
    assert [r["call_id"] for r in records(ctx)] == [f"c{i}" for i in range(5)]


def test_input_is_masked_and_long_strings_shortened(dispatcher: Dispatcher, ctx: ToolContext) -> None:
    dispatcher.dispatch(ToolCall("c1", "t", json.dumps({"text": "DB_PASSWORD=hunter22x " + "w" * 5000})))
    (rec,) = records(ctx)
    assert "hunter22x" not in json.dumps(rec)
    assert rec["input"]["text"].startswith("DB_PASSWORD=[REDACTED] www")
    assert rec["input"]["text"].endswith(f"…[{len('DB_PASSWORD=[REDACTED] ') + 5000} chars]")
    assert len(rec["input"]["text"]) < MAX_INPUT_STRING + 30


def test_truncated_result_is_recorded(ctx: ToolContext) -> None:
    spec: ToolSpec[Args] = ToolSpec(name="t", description="d", input_model=Args,
                                    handler=lambda inp, c: "v" * 5000, max_result_chars=1000)
    Dispatcher(ToolRegistry([spec]), ctx).dispatch(ToolCall("c1", "t", '{"text": "x"}'))
    (rec,) = records(ctx)
    assert rec["truncated"] is True and rec["result_chars"] == 5000


def test_unwritable_log_never_fails_the_call(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    log = AuditLog(blocker / ".axon", "s")
    log.write(tool="t", call_id="c", input={}, decision="allow", decided_by="x", duration_ms=1,
              result_chars=0, truncated=False, error=None)
    assert log.read() == []


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)


@needs_git
def test_state_dir_is_gitignored_except_shared_settings(dispatcher: Dispatcher, ctx: ToolContext) -> None:
    repo = ctx.project_root
    assert git(repo, "init", "-q").returncode == 0
    dispatcher.dispatch(ToolCall("c1", "t", '{"text": "hi"}'))
    assert (ctx.state_dir / ".gitignore").read_text() == GITIGNORE
    (ctx.state_dir / "sessions").mkdir()
    (ctx.state_dir / "sessions" / "x.jsonl").write_text("{}\n")
    for ignored in (".axon/audit.jsonl", ".axon/sessions/x.jsonl", ".axon/tool-results/a.txt", ".axon/.gitignore",
                    ".axon/memory/notes.md", ".axon/sessions/config.toml"):
        assert git(repo, "check-ignore", "-q", ignored).returncode == 0, ignored
    for kept in (".axon/config.toml", ".axon/permissions.toml"):
        assert git(repo, "check-ignore", "-q", kept).returncode == 1, kept
    assert git(repo, "status", "--porcelain", "--untracked-files=all").stdout == ""
    (ctx.state_dir / "permissions.toml").write_text('allow = ["bash(ls)"]\n')
    assert git(repo, "status", "--porcelain", "--untracked-files=all").stdout == "?? .axon/permissions.toml\n"


def test_existing_gitignore_is_kept(tmp_path: Path) -> None:
    state = tmp_path / ".axon"
    state.mkdir()
    (state / ".gitignore").write_text("mine\n")
    ensure_state_dir(state)
    assert (state / ".gitignore").read_text() == "mine\n"
