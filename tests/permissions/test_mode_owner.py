"""The permission mode has one owner (``permissions.modes.CurrentMode``, held by the policy): it is
changed through every entry point — ``/mode``, Shift-Tab, plan approval, ACP, resume — and each reader
sees the change: the policy's decisions, the session's callbacks (hooks, transcript), the system prompt
sent to the model, the REPL's prompt, ACP's mode selector. No second copy is kept: the settings still
say the mode the session started in. In-process, against the scripted server, through the real REPL,
ACP session and runtime objects (no terminal needed)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from axon_cli.app.acp.acp_session import AcpSession
from axon_cli.app.ui.plan import after_plan
from axon_cli.app.ui.repl import Repl
from axon_cli.app.ui.slash import run_slash
from axon_cli.kernel.events import DenyApprover
from axon_cli.session.runtime.opening import open_session
from axon_cli.settings.config import load_settings
from tests.conftest import TEST_KEY
from tests.fakeserver import text_reply

EDIT_DECISION = {"plan": "deny", "read-only": "deny", "default": "ask", "accept-edits": "allow", "auto": "allow"}


def _repl(project: Path, server: Any, resume: str | None = None) -> Repl:
    loaded = load_settings(project, flags={"base_url": server.url, "api_key": TEST_KEY, "model": "test-model"},
                           env={})
    repl = Repl(loaded, project)
    repl._use(open_session(loaded, project, repl.approver, resume=resume))
    return repl


def _slash(repl: Repl) -> str:
    run_slash(repl, "/mode auto")
    return "auto"


def _shift_tab(repl: Repl) -> str:
    repl.cycle_mode()
    return "accept-edits"


def _plan_approval(repl: Repl) -> str:
    after_plan(repl, read=lambda *_: "2")          # "yes, in accept-edits mode" (and the approval turn runs)
    return "accept-edits"


def _acp(repl: Repl) -> str:
    AcpSession(repl.rt, None, repl.project_root).set_mode("plan")   # type: ignore[arg-type]
    return "plan"


ENTRY_POINTS: dict[str, Callable[[Repl], str]] = {"/mode": _slash, "Shift-Tab": _shift_tab,
                                                   "plan approval": _plan_approval, "ACP": _acp}


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_every_entry_point_changes_the_one_mode_every_reader_sees(entry, project, server, monkeypatch):
    monkeypatch.chdir(project)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(project.parent / "home" / ".config"))
    monkeypatch.setenv("HOME", str(project.parent / "home"))
    server.add(text_reply("first"), text_reply("second"))
    repl = _repl(project, server)
    try:
        assert repl.rt.policy.mode == "default"
        mode = ENTRY_POINTS[entry](repl)
        _assert_everyone_reads(repl, mode)
        repl.rt.agent.run("go on")
        _assert_sent_and_recorded(project, server, repl, mode)
    finally:
        repl.rt.close()


def test_resume_restores_a_narrower_mode_through_the_owner(project, server, monkeypatch):
    monkeypatch.chdir(project)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(project.parent / "home" / ".config"))
    monkeypatch.setenv("HOME", str(project.parent / "home"))
    server.add(text_reply("first"), text_reply("second"))
    repl = _repl(project, server)
    run_slash(repl, "/mode read-only")
    repl.rt.agent.run("look around")
    session_id = repl.rt.session_id
    repl.rt.close()
    resumed = _repl(project, server, resume=session_id)         # a new process would start in default
    try:
        _assert_everyone_reads(resumed, "read-only")
        resumed.rt.agent.run("and now")
        _assert_sent_and_recorded(project, server, resumed, "read-only")
    finally:
        resumed.rt.close()


def _assert_everyone_reads(repl: Repl, mode: str) -> None:
    rt = repl.rt
    spec = rt.registry.get("edit_file")
    assert spec is not None
    edit = spec.input_model.model_validate({"path": "a.txt", "old_string": "x", "new_string": "y"})
    assert rt.policy.check(spec, edit).behavior == EDIT_DECISION[mode]        # the decisions
    assert rt.policy.mode == mode and rt.policy.current.value == mode           # the owner
    assert rt.session is not None and rt.session.current_mode() == mode        # hooks, transcript
    assert repl.current_mode() == mode                                        # the prompt line, status
    assert AcpSession(rt, None, repl.project_root).modes().current_mode_id == mode   # type: ignore[arg-type]
    assert rt.loaded.settings.mode == "default"                               # no second copy


def _assert_sent_and_recorded(project: Path, server: Any, repl: Repl, mode: str) -> None:
    system = server.requests[-1].messages[0]["content"]
    assert f"Permission mode: {mode}." in system
    transcript = project / ".axon" / "sessions" / f"{repl.rt.session_id}.jsonl"
    recorded = [json.loads(line) for line in transcript.read_text().splitlines()]
    modes = [r["mode"] for r in recorded if r.get("type") == "meta" and r.get("kind") == "mode"]
    assert modes and modes[-1] == mode


def test_no_module_keeps_a_copy_of_the_mode():
    """Assignments to a ``.mode`` of settings, or to the owner's value, happen nowhere but the owner."""
    import ast

    root = Path(__file__).resolve().parents[2] / "axon_cli"
    found = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            else:
                continue
            for target in targets:
                text = ast.unparse(target)
                if text.endswith("settings.mode") or text.endswith(("current.value", "._mode")):
                    found.append(f"{path.relative_to(root)}:{node.lineno}: {text}")
    assert not found, found


def test_an_unknown_mode_changes_nothing(project, server, monkeypatch):
    from axon_cli.kernel.errors import ConfigError

    monkeypatch.chdir(project)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(project.parent / "home" / ".config"))
    loaded = load_settings(project, flags={"base_url": server.url, "api_key": TEST_KEY, "model": "test-model"},
                           env={})
    rt = open_session(loaded, project, DenyApprover())
    try:
        with pytest.raises(ConfigError):
            rt.policy.set_mode("everything")
        assert rt.policy.mode == "default"
    finally:
        rt.close()
