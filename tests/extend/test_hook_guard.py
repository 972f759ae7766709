"""In-process: a hook whose script changed during the session, through the real ``HookRunner`` and
``HookGuard`` with a scripted approver (the seam every frontend implements)."""

from __future__ import annotations

from pathlib import Path

from axon_cli.kernel.events import ApprovalAnswer, ApprovalRequest, Event, Notice
from axon_cli.session.extend.hook_guard import HookGuard, Placement
from axon_cli.session.extend.hook_runner import HookRunner
from axon_cli.settings.config import HookConfig
from axon_cli.tools.audit import AuditLog


class Answers:
    def __init__(self, *answers: bool) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    def __call__(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(request)
        return ApprovalAnswer(approved=self.answers.pop(0))


def setup(tmp_path: Path, event: str, approver: Answers | None, sandbox: str = "off"
          ) -> tuple[HookRunner, Path, list[Event]]:
    root = tmp_path / "proj"
    (root / "scripts").mkdir(parents=True)
    script = root / "scripts" / "check.sh"
    script.write_text("echo original >> ran.txt\n")
    hook = HookConfig(command="sh scripts/check.sh")
    events: list[Event] = []
    guard = HookGuard(root, [hook], sandbox=sandbox, emit=events.append)
    guard.approver = lambda: approver
    runner = HookRunner({event: [hook]}, root, "s1", AuditLog(root / ".axon", "s1"), guard)
    return runner, script, events


def test_unchanged_runs_outside_and_a_change_is_asked_about_once_when_approved(tmp_path):
    approver = Answers(True)
    runner, script, _events = setup(tmp_path, "PostToolUse", approver)
    runner.run("PostToolUse", {}, "bash")
    assert approver.asked == []
    script.write_text("echo rewritten >> ran.txt\n")
    runner.run("PostToolUse", {}, "bash", call_id="c1")
    runner.run("PostToolUse", {}, "bash", call_id="c2")
    assert (script.parent.parent / "ran.txt").read_text().split() == ["original", "rewritten", "rewritten"]
    [request] = approver.asked                      # approved once: that content is fine for the session
    assert request.reason == ("PostToolUse hook `sh scripts/check.sh` runs scripts/check.sh, which changed "
                              "during this session") and request.outside_sandbox


def test_not_approved_runs_inside_the_sandbox_when_there_is_one(tmp_path):
    runner, script, events = setup(tmp_path, "PostToolUse", Answers(False), sandbox="workspace-write")
    script.write_text("echo rewritten >> ran.txt\n")
    assert runner.guard is not None
    assert runner.guard.placement("PostToolUse", runner.hooks["PostToolUse"][0]) == Placement("workspace-write")
    assert any(isinstance(e, Notice) and "it runs inside it" in e.message for e in events)


def test_without_a_sandbox_a_pre_tool_use_hook_that_did_not_run_blocks_the_call(tmp_path):
    for approver in (Answers(False), None):         # "no", or nobody to ask
        runner, script, _events = setup(tmp_path / str(id(approver)), "PreToolUse", approver)
        script.write_text("echo rewritten >> ran.txt\n")
        [reply] = runner.run("PreToolUse", {"tool_name": "bash"}, "bash").replies
        assert reply.outcome == "skipped" and reply.decision == "deny"
        assert "scripts/check.sh, which changed during this session" in reply.reason
        assert not (script.parent.parent / "ran.txt").exists()

    runner, script, _events = setup(tmp_path / "post", "PostToolUse", Answers(False))
    script.write_text("echo rewritten >> ran.txt\n")
    [reply] = runner.run("PostToolUse", {}, "bash").replies
    assert reply.outcome == "skipped" and reply.decision is None     # not a tool guard: it counts as silent
    assert not (script.parent.parent / "ran.txt").exists()
