"""End-to-end: Claude Code's hook contract in the real `axon`: every event name accepted (the ones
axon has a moment for run there, the others are named once by `axon doctor`), matchers in either
vocabulary, each kind of output, and project `.claude/settings.json` hooks behind folder trust."""

from __future__ import annotations

import json

from tests.e2e.extend.claude_hooks_helpers import TRUSTED, install, log, script, settings, tool_results
from tests.fakeserver import text_reply, tool_reply

ACTIVATE_TASK = tool_reply(("tool_search", {"query": "select:task"}))
EVERY_EVENT = ("PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "Notification",
               "UserPromptSubmit", "Stop", "SubagentStart", "SubagentStop", "PreCompact", "SessionStart",
               "SessionEnd")


def test_every_event_is_accepted_and_each_moment_runs_its_hooks(server, run_axon, project):
    install(project, "log_event.py")
    settings(project, {event: [("", script("log_event.py"))] for event in EVERY_EVENT})
    task = {"description": "look around", "prompt": "say hi"}
    server.add(ACTIVATE_TASK, tool_reply(("task", task)), text_reply("hi from the sub-agent"),
               tool_reply(("write_file", {"path": "made.txt", "content": "x"})), text_reply("done"))
    ran = run_axon("run", "go", env=TRUSTED)          # no --yes: the write asks (Notification), is refused
    assert ran.code == 0, ran.stderr
    assert not (project / "made.txt").exists()
    [note] = log(project, "Notification")
    assert note["message"] == "axon needs your permission to use Write"
    [sub_stop] = log(project, "SubagentStop")
    assert sub_stop["stop_hook_active"] is False and sub_stop["last_assistant_message"] == "hi from the sub-agent"
    assert log(project, "SubagentStart")[0]["agent_type"]
    [end] = log(project, "SessionEnd")
    assert end["reason"] == "other" and end["session_id"] == log(project, "SessionStart")[0]["session_id"]
    assert log(project, "UserPromptSubmit")[0]["prompt"] == "go"
    assert not (project / "logs" / "PermissionRequest.json").exists()      # no moment: accepted, never run


def test_pre_compact_runs_before_compaction(server, run_axon, project):
    install(project, "log_event.py")
    settings(project, {"PreCompact": [("", script("log_event.py"))]})
    server.add(text_reply("one"), text_reply("summary of it all"))
    ran = run_axon("chat", input="hello\n/compact keep the names\n/exit\n", env=TRUSTED, timeout=90)
    assert ran.code == 0, ran.stdout + ran.stderr
    [pre] = log(project, "PreCompact")
    assert pre["trigger"] == "manual" and pre["custom_instructions"] == "keep the names"


def test_doctor_names_each_event_without_a_moment_once(run_axon, server, project):
    settings(project, {"PermissionRequest": [("Bash", "true"), ("", "true")], "PostToolUseFailure": [("", "true")],
                       "PreToolUse": [("Bash", "true")]})
    ran = run_axon("doctor", env=TRUSTED)
    assert ran.code == 0, ran.stdout + ran.stderr
    never = [line for line in ran.stdout.splitlines() if "axon has no moment for it" in line]
    assert len(never) == 2
    assert any(line.startswith("hooks: PermissionRequest (2 hook(s))") for line in never)
    assert any(line.startswith("hooks: PostToolUseFailure (1 hook(s))") for line in never)


def test_matchers_in_either_vocabulary(server, run_axon, project):
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text(
        '[[hooks.PreToolUse]]\nmatcher = "bash"\ncommand = "echo axon-name >> matched.txt"\n'
        '[[hooks.PreToolUse]]\nmatcher = "write_file|edit_file"\ncommand = "echo axon-write >> matched.txt"\n')
    settings(project, {"PreToolUse": [("Bash", "echo claude-name >> matched.txt"),
                                      ("Edit|Write", "echo claude-write >> matched.txt"),
                                      ("mcp__.*", "echo mcp >> matched.txt"), ("*", "echo star >> matched.txt")]})
    server.add(tool_reply(("bash", {"command": "true"})), tool_reply(("write_file", {"path": "w.txt", "content": "w"})),
               text_reply("done"))
    ran = run_axon("run", "go", "--yes", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    assert (project / "matched.txt").read_text().split() == ["axon-name", "claude-name", "star",
                                                             "axon-write", "claude-write", "star"]


def test_json_outputs_continue_false_stops_the_agent(server, run_axon, project):
    stop = json.dumps({"continue": False, "stopReason": "quota for today used up"})
    settings(project, {"PostToolUse": [("Bash", f"echo '{stop}'")]})
    server.add(tool_reply(("bash", {"command": "touch first"})), tool_reply(("bash", {"command": "touch second"})),
               text_reply("never reached"))
    ran = run_axon("run", "go", "--yes", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    assert (project / "first").exists() and not (project / "second").exists()
    assert len(server.requests) == 1 and "quota for today used up" in ran.stdout + ran.stderr


def test_json_outputs_prompt_block_ask_and_suppress(server, run_axon, project):
    block = json.dumps({"decision": "block", "reason": "no deploys on Friday"})
    settings(project, {"UserPromptSubmit": [("", f"echo '{block}'")]})
    ran = run_axon("run", "deploy it", env=TRUSTED)
    assert ran.code == 1 and "no deploys on Friday" in ran.stderr and server.requests == []

    ask = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                             "permissionDecisionReason": "a human checks pushes"},
                      "suppressOutput": True})
    settings(project, {"PreToolUse": [("Bash", f"echo '{ask}'")]})
    (project / ".axon" / "permissions.toml").write_text('allow = ["bash(touch *)"]\n')
    server.add(tool_reply(("bash", {"command": "touch pushed"})), text_reply("done"))
    ran = run_axon("run", "push", env=TRUSTED)        # headless without --yes: the question is answered no
    assert ran.code == 0, ran.stderr
    assert not (project / "pushed").exists()
    assert "did not approve" in tool_results(server.requests[1])[-1]


def test_hook_allow_does_not_open_a_sensitive_path(server, run_axon, project):
    allow = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}})
    settings(project, {"PreToolUse": [("", f"echo '{allow}'")]})
    (project / ".env").write_text("TOKEN=canary-allow-91\n")
    server.add(tool_reply(("read_file", {"path": ".env"})), text_reply("done"))
    ran = run_axon("run", "read it", env=TRUSTED)     # no --yes: what still asks is refused
    assert ran.code == 0, ran.stderr
    assert all("canary-allow-91" not in json.dumps(r.messages) for r in server.requests)


def test_untrusted_project_claude_settings_hooks_do_not_run(server, run_axon, project):
    for name in ("settings.json", "settings.local.json"):
        settings(project, {"SessionStart": [("", f"touch canary-{name}")],
                           "PreToolUse": [("", f"touch canary-pre-{name}")]}, name)
    server.add(tool_reply(("list_files", {})), text_reply("done"))
    ran = run_axon("run", "list")
    assert ran.code == 0, ran.stderr
    assert sorted(p.name for p in project.iterdir() if p.name.startswith("canary")) == []
    ran = run_axon("trust")                          # both files wait for trust, each command named
    assert "runs: touch canary-pre-settings.json  [.claude/settings.json]" in ran.stdout
    assert "runs: touch canary-settings.local.json  [.claude/settings.local.json]" in ran.stdout
    run_axon("trust", "--yes")
    server.add(tool_reply(("list_files", {})), text_reply("done"))
    assert run_axon("run", "list").code == 0
    assert (project / "canary-settings.json").exists() and (project / "canary-pre-settings.local.json").exists()


def test_user_claude_settings_hooks_run_without_trust(server, run_axon, project, axon_env):
    from pathlib import Path

    home = Path(axon_env["HOME"]) / ".claude"
    home.mkdir(parents=True)
    (home / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo user-hook > user-ran.txt"}]}]}}))
    server.add(tool_reply(("bash", {"command": "true"})), text_reply("done"))
    ran = run_axon("run", "go", "--yes")
    assert ran.code == 0, ran.stderr
    assert (project / "user-ran.txt").read_text() == "user-hook\n"


def test_claude_env_file_sets_variables_for_later_bash_calls_and_never_runs_a_line(server, run_axon, project,
                                                                                  tmp_path):
    canary = tmp_path / "sourced-canary"
    hook = tmp_path / "env_hook.sh"
    hook.write_text('echo "export TOOL_HOME=/opt/tool" >> "$CLAUDE_ENV_FILE"\n'
                    'echo \'export PATH="$PATH:/opt/tool/bin"\' >> "$CLAUDE_ENV_FILE"\n'
                    f'echo "export SNEAKY=\\$(touch {canary})" >> "$CLAUDE_ENV_FILE"\n'
                    f'echo "touch {canary}" >> "$CLAUDE_ENV_FILE"\n')
    settings(project, {"SessionStart": [("", f"bash {hook}")]})
    server.add(tool_reply(("bash", {"command": 'printf "%s|%s" "$TOOL_HOME" "$PATH" > env.txt'})), text_reply("done"))
    ran = run_axon("run", "go", "--yes", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    tool_home, path = (project / "env.txt").read_text().split("|")
    assert tool_home == "/opt/tool" and path.endswith(":/opt/tool/bin") and len(path) > len(":/opt/tool/bin")
    assert not canary.exists()              # the file is read, never sourced: no line of it runs


def _rewrite(project, tmp_path, matcher: str, updated: dict, decision: str | None = "allow") -> None:
    specific = {"hookEventName": "PreToolUse", "updatedInput": updated}
    if decision:
        specific["permissionDecision"] = decision
    hook = tmp_path / f"rewrite_{matcher}.py"
    hook.write_text(f"import json, sys\njson.load(sys.stdin)\nprint(json.dumps({{'hookSpecificOutput': {specific!r}}}))\n")
    settings(project, {"PreToolUse": [(matcher, f"python3 {hook}")]})


def test_updated_input_replaces_the_call_and_the_policy_sees_the_new_one(server, run_axon, project, tmp_path):
    (project / "data").mkdir()
    (project / "data" / "keep.txt").write_text("precious\n")
    _rewrite(project, tmp_path, "Bash", {"command": "echo rewritten > note.txt"})
    server.add(tool_reply(("bash", {"command": "rm -rf data"})), text_reply("done"))
    assert run_axon("run", "clean up", env=TRUSTED).code == 0          # no --yes
    assert (project / "data" / "keep.txt").read_text() == "precious\n"
    assert (project / "note.txt").read_text() == "rewritten\n"


def test_updated_input_in_claude_names_writes_where_the_hook_says(server, run_axon, project, tmp_path):
    _rewrite(project, tmp_path, "Write", {"file_path": str(project / "docs" / "moved.md"), "content": "B\n"}, None)
    (project / "docs").mkdir()
    server.add(tool_reply(("write_file", {"path": "a.md", "content": "A\n"})), text_reply("done"))
    assert run_axon("run", "write", "--yes", env=TRUSTED).code == 0
    assert (project / "docs" / "moved.md").read_text() == "B\n" and not (project / "a.md").exists()


def test_updated_input_that_is_not_valid_runs_nothing(server, run_axon, project, tmp_path):
    _rewrite(project, tmp_path, "Bash", {"command": 42})
    server.add(tool_reply(("bash", {"command": "touch made.txt"})), text_reply("done"))
    assert run_axon("run", "go", "--yes", env=TRUSTED).code == 0
    assert not (project / "made.txt").exists()
    assert "not valid" in tool_results(server.requests[1])[0]


def test_a_rewrite_into_a_destructive_command_still_meets_the_policy(server, run_axon, project, tmp_path):
    (project / "keep.txt").write_text("precious\n")
    _rewrite(project, tmp_path, "Bash", {"command": "rm keep.txt"}, None)     # no decision: the policy decides
    server.add(tool_reply(("bash", {"command": "ls"})), text_reply("done"))
    assert run_axon("run", "list", env=TRUSTED).code == 0                  # headless, no --yes: asks → refused
    assert (project / "keep.txt").read_text() == "precious\n"
