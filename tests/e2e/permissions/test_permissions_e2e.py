"""End-to-end: permissions through the real ``axon run`` (and ``axon permissions``)."""

from __future__ import annotations

import pytest

from tests.fakeserver import text_reply, tool_reply
from tests.sandbox.test_sandbox import NO_NAMESPACES

PERMS = ".axon/permissions.toml"
TRUSTED = {"AXON_TRUST": "1"}     # these tests exercise the permission file itself: its folder is trusted


def _perms(project, text: str) -> None:
    (project / ".axon").mkdir(exist_ok=True)
    (project / PERMS).write_text(text)


def _tool_result(server) -> str:
    msg = server.requests[1].messages[-1]
    assert msg["role"] == "tool"
    return msg["content"]


def test_deny_rule_text_goes_back_to_the_model_and_yes_does_not_override(server, run_axon, project):
    _perms(project, 'deny = ["bash(git push*)"]\n')
    server.add(tool_reply(("bash", {"command": "echo hi && git push origin main"})), text_reply("ok"))
    r = run_axon("run", "push it", "--yes")
    assert r.code == 0, r.stderr
    assert _tool_result(server) == ('Permission denied: bash "echo hi && git push origin main" '
                                    '(deny rule "bash(git push*)" in .axon/permissions.toml)')


def test_ask_without_yes_is_denied_with_how_to_allow(server, run_axon, project):
    server.add(tool_reply(("bash", {"command": "touch made.txt"})), text_reply("ok"))
    r = run_axon("run", "make a file", "--sandbox", "off")   # the unsandboxed policy: touch asks
    assert r.code == 0, r.stderr
    out = _tool_result(server)
    assert out.startswith("Permission denied: the user did not approve this call")
    assert "re-run with --yes" in out and 'add the allow rule "bash(touch made.txt)"' in out
    assert not (project / "made.txt").exists()


def test_yes_approves_an_ask(server, run_axon, project):
    server.add(tool_reply(("bash", {"command": "touch made.txt"})), text_reply("ok"))
    r = run_axon("run", "make a file", "--yes")
    assert r.code == 0, r.stderr
    assert (project / "made.txt").exists()


@pytest.mark.parametrize("mode,write_runs,bash_runs", [
    ("default", False, False), ("accept-edits", True, False), ("read-only", False, False), ("yolo", True, True),
])
def test_each_mode_through_axon_run(server, run_axon, project, mode, write_runs, bash_runs):
    (project / "a.txt").write_text("alpha\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"}), ("write_file", {"path": "w.txt", "content": "x"}),
                          ("bash", {"command": "touch b.txt"})), text_reply("done"))
    r = run_axon("run", "go", "--mode", mode, "--sandbox", "off")   # the modes without a sandbox
    assert r.code == 0, r.stderr
    results = {m["tool_call_id"]: m["content"] for m in server.requests[1].messages if m["role"] == "tool"}
    read, write, bash = (results[f"call_1_{i}"] for i in range(3))
    assert "alpha" in read
    assert (project / "w.txt").exists() is write_runs
    assert (project / "b.txt").exists() is bash_runs
    if mode == "read-only":
        assert write == 'Permission denied: write_file w.txt is not read-only (mode read-only)'
    elif not write_runs:
        assert "did not approve" in write and 'add the allow rule "write_file(w.txt)"' in write


def test_permission_file_mode_applies_unless_flag_given(server, run_axon, project):
    _perms(project, 'mode = "yolo"\n')
    server.add(tool_reply(("bash", {"command": "touch y.txt"})), text_reply("ok"),
               tool_reply(("bash", {"command": "touch z.txt"})), text_reply("ok"))
    assert run_axon("run", "a", env=TRUSTED).code == 0
    assert (project / "y.txt").exists()
    assert run_axon("run", "b", "--mode", "default", "--sandbox", "off", env=TRUSTED).code == 0   # unsandboxed: asks
    assert not (project / "z.txt").exists()


def test_sensitive_paths_ask_even_in_yolo(server, run_axon, project):
    (project / ".env").write_text("TOKEN=abc\n")
    server.add(tool_reply(("read_file", {"path": ".env"}), ("bash", {"command": "cat .env"})), text_reply("ok"))
    r = run_axon("run", "peek", "--mode", "yolo")
    assert r.code == 0, r.stderr
    tools = [m["content"] for m in server.requests[1].messages if m["role"] == "tool"]
    assert len(tools) == 2 and all(t.startswith("Permission denied: the user did not approve") for t in tools)
    assert all("TOKEN" not in t for t in tools)


def test_dotdot_and_symlink_escapes_ask(server, run_axon, project):
    outside = project.parent / "outside.txt"
    outside.write_text("SECRET-OUTSIDE\n")
    (project / "link.txt").symlink_to(outside)
    server.add(tool_reply(("read_file", {"path": "../outside.txt"}), ("read_file", {"path": "link.txt"}),
                          ("bash", {"command": "cat link.txt"})), text_reply("ok"))
    r = run_axon("run", "escape")
    assert r.code == 0, r.stderr
    tools = [m["content"] for m in server.requests[1].messages if m["role"] == "tool"]
    assert len(tools) == 3
    assert all("did not approve" in t and "SECRET-OUTSIDE" not in t for t in tools)


def test_precedence_through_axon_run(server, run_axon, project):
    _perms(project, 'allow = ["bash(touch *)"]\nask = ["bash(touch asked*)"]\ndeny = ["bash(touch denied*)"]\n')
    server.add(tool_reply(("bash", {"command": "touch allowed.txt"}), ("bash", {"command": "touch asked.txt"}),
                          ("bash", {"command": "touch denied.txt"})), text_reply("ok"))
    r = run_axon("run", "touch things", env=TRUSTED)
    assert r.code == 0, r.stderr
    assert (project / "allowed.txt").exists()
    assert not (project / "asked.txt").exists() and not (project / "denied.txt").exists()
    tools = [m["content"] for m in server.requests[1].messages if m["role"] == "tool"]
    assert "did not approve" in tools[1]
    assert tools[2].endswith('(deny rule "bash(touch denied*)" in .axon/permissions.toml)')


def test_malformed_permission_file_stops_axon(server, run_axon, project):
    _perms(project, 'allow = ["bash(git status"]\n')
    r = run_axon("run", "x")
    assert r.code == 1
    assert r.stderr.strip() == ('axon: error: .axon/permissions.toml: allow rule "bash(git status": expected TOOL '
                                'or TOOL(PATTERN), e.g. "bash(git status)" or "edit_file(src/**)"')
    assert not server.requests


def test_permissions_command_lists_rules_and_check_explains(run_axon, project):
    _perms(project, '# team rules\nmode = "accept-edits"\nallow = ["bash(pytest *)"]\ndeny = ["bash(git push*)"]\n')
    r = run_axon("permissions", env=TRUSTED)
    assert r.code == 0, r.stderr
    assert "mode: accept-edits  (.axon/permissions.toml)" in r.stdout
    assert "bash(git push*)  # .axon/permissions.toml" in r.stdout
    assert "bash(pytest *)  # .axon/permissions.toml" in r.stdout
    r = run_axon("permissions", "check", "bash(git push origin main)")
    assert r.code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "bash(git push origin main): deny"
    assert 'decided by: deny rule "bash(git push*)" in .axon/permissions.toml' in r.stdout
    assert "destructive: yes (git push changes the remote)" in r.stdout and "read-only: no" in r.stdout
    (project / ".axon" / "config.toml").write_text('sandbox = "off"\n')        # the policy without a sandbox
    r = run_axon("permissions", "check", "bash(ls && rm x)", env=TRUSTED)
    assert "bash(ls && rm x): ask" in r.stdout and "simple commands: ls; rm x" in r.stdout
    if NO_NAMESPACES is None:                    # with the sandbox, undo makes it safe to run unasked in auto
        (project / ".axon" / "config.toml").write_text('sandbox = "workspace-write"\n')
        r = run_axon("permissions", "check", "bash(ls && rm x)", env=TRUSTED)
        assert r.stdout.startswith("bash(ls && rm x): ask\n  decided by: mode accept-edits\n"
                                   "  reason: destructive: rm deletes files\n"), r.stdout
        assert "    auto          runs    sandboxed, undoable\n" in r.stdout
        r = run_axon("permissions", "check", "bash(ls && rm x)", "--mode", "auto", env=TRUSTED)
        assert r.stdout.startswith("bash(ls && rm x): allow\n  decided by: mode auto, sandbox and snapshot\n"
                                   "  reason: sandboxed, undoable\n"), r.stdout
    r = run_axon("permissions", "check", "read_file(.env)", "--mode", "yolo")
    assert "read_file(.env): ask" in r.stdout and "sensitive" in r.stdout
