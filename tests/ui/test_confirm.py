"""The REPL approver: what it shows, and the answer each key gives (keys scripted, no terminal)."""

from __future__ import annotations

import io
import threading

import pytest
from rich.console import Console

from axon_cli.app.ui.confirm import ReplApprover, answer_for, approval_panel
from axon_cli.kernel.events import ApprovalRequest

BASH = ApprovalRequest(call_id="c1", tool="bash", arguments={"command": "rm -rf build"}, summary="rm -rf build",
                       reason="bash commands ask in default mode", destructive=True, preview="rm -rf build",
                       suggested_rule="bash(rm -rf build)")
EDIT = ApprovalRequest(call_id="c2", tool="edit_file", arguments={"path": "a.py"}, summary="a.py",
                       reason="edits ask in default mode",
                       preview="--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n")


def console() -> Console:
    return Console(width=80, file=io.StringIO(), color_system=None, force_terminal=True, legacy_windows=False)


def text(c: Console) -> str:
    return "\n".join(line.rstrip() for line in c.file.getvalue().split("\n"))  # type: ignore[attr-defined]


def test_bash_panel_snapshot():
    c = console()
    c.print(approval_panel(BASH))
    assert text(c) == (
        "╭─ allow bash? ────────────────────────────────────────────────────────────────╮\n"
        "│ rm -rf build                                                                 │\n"
        "│                                                                              │\n"
        "│ why: bash commands ask in default mode  ·  destructive                       │\n"
        "╰──────────────────────────────────────────────────────────────────────────────╯\n")


def test_bash_panel_says_when_it_runs_outside_the_sandbox():
    c = console()
    push = BASH.model_copy(update={"preview": "git push origin main", "outside_sandbox": True,
                                   "outside_reason": "git push needs the network", "destructive": False,
                                   "reason": "not read-only"})
    c.print(approval_panel(push))
    assert text(c) == (
        "╭─ allow bash? ────────────────────────────────────────────────────────────────╮\n"
        "│ git push origin main                                                         │\n"
        "│                                                                              │\n"
        "│ why: not read-only                                                           │\n"
        "│ if approved, it runs outside the sandbox: git push needs the network         │\n"
        "╰──────────────────────────────────────────────────────────────────────────────╯\n")
    c = console()
    c.print(approval_panel(push.model_copy(update={"reason": "runs outside the sandbox: git push needs the network"})))
    assert "why: runs outside the sandbox: git push needs the network" in text(c)
    assert text(c).count("outside the sandbox") == 1


def test_edit_panel_shows_the_diff():
    c = console()
    c.print(approval_panel(EDIT))
    out = text(c)
    assert "allow edit_file?  a.py" in out
    assert "│   -x = 1" in out and "│   +x = 2" in out
    assert "destructive" not in out and "why: edits ask in default mode" in out


@pytest.mark.parametrize(("key", "approved", "remember", "message"), [
    ("y", True, "no", ""), ("n", False, "no", ""), ("a", True, "session", ""), ("p", True, "project", ""),
    ("use git clean instead", False, "no", "use git clean instead"),
])
def test_answer_for_each_key(key, approved, remember, message):
    answer = answer_for(key, BASH)
    assert (answer.approved, answer.remember, answer.message) == (approved, remember, message)


def test_always_needs_a_rule():
    assert answer_for("p", EDIT).approved is False   # no suggested rule: 'p' is not an answer


def test_approver_prompts_and_says_which_rule():
    c = console()
    seen: list[tuple[str, str]] = []
    paused = []

    def read(prompt: str, keys: str) -> str:
        seen.append((prompt, keys))
        return "p"

    approver = ReplApprover(c, pause=lambda: paused.append(True), read=read)
    answer = approver(BASH)
    assert answer.approved and answer.remember == "project"
    assert seen == [("> ", "ynap")] and paused == [True]
    out = text(c)
    assert "y yes · n no · a always this session · p always in this project\nrule bash(rm -rf build) · or type a reason" in out
    assert "added allow rule bash(rm -rf build) to .axon/permissions.toml" in out


def test_approver_without_rule_offers_only_yes_no():
    keys: list[str] = []
    approver = ReplApprover(console(), read=lambda p, k: keys.append(k) or "n")
    assert approver(EDIT).approved is False
    assert keys == ["yn"]


def test_ctrl_c_denies_and_cancels_the_turn():
    def read(prompt: str, keys: str) -> str:
        raise KeyboardInterrupt

    c = console()
    approver = ReplApprover(c, read=read)
    approver.cancel = threading.Event()
    answer = approver(BASH)
    assert not answer.approved and answer.message == "interrupted by user"
    assert approver.cancel.is_set()
    asked = []
    later = ReplApprover(c, read=lambda p, k: asked.append(p) or "y")
    later.cancel = approver.cancel
    assert later(EDIT).approved is False and asked == []     # pending asks after Ctrl-C are not asked


def test_elicitation_is_asked_field_by_field_and_converted():
    from axon_cli.kernel.events import InputField, InputRequest
    from axon_cli.session.mcp.asks import elicit_result

    request = InputRequest(source="MCP server 'notes'", message="Who and how many?",
                           fields=[InputField(name="name", required=True), InputField(name="count", kind="integer")])
    typed = iter(["y", "Ada", "3"])
    c = console()
    answer = ReplApprover(c, read=lambda _prompt, _keys: next(typed)).ask_input(request)
    assert answer.action == "accept" and answer.values == {"name": "Ada", "count": "3"}
    assert "MCP server 'notes' asks" in text(c) and "Who and how many?" in text(c)
    result = elicit_result(request, answer)
    assert (result.action, result.content) == ("accept", {"name": "Ada", "count": 3})
    declined = ReplApprover(console(), read=lambda _prompt, _keys: "n").ask_input(request)
    assert declined.action == "decline"
    bad = elicit_result(request, answer.model_copy(update={"values": {"name": "Ada", "count": "many"}}))
    assert bad.action == "cancel"                        # a value that does not fit its field is not sent
