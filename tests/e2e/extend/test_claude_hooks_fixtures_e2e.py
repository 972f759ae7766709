"""End-to-end: Claude Code hook scripts (tests/fixtures/claude_hooks, see its README) wired through
`.claude/settings.json` as their users do, run by the real `axon run` against the scripted server.
Each must behave as in Claude Code: block what it blocks (the effect on disk, and the tool result the
model received), let the rest run, and see the fields it reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.e2e.extend.claude_hooks_helpers import TRUSTED, install, log, script, settings, tool_results
from tests.fakeserver import text_reply, tool_reply

needs_jq = pytest.mark.skipif(shutil.which("jq") is None, reason="the shell fixtures use jq, as their originals do")


def test_bash_validator_blocks_grep_and_lets_other_commands_run(server, run_axon, project):
    install(project, "bash_validator.py")
    settings(project, {"PreToolUse": [("Bash", script("bash_validator.py"))]})
    (project / "x.txt").write_text("needle\n")
    server.add(tool_reply(("bash", {"command": "grep needle x.txt"})),
               tool_reply(("bash", {"command": "touch ran-with-rg"})), text_reply("done"))
    ran = run_axon("run", "find needle", "--yes", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    [blocked] = tool_results(server.requests[1])
    assert "Use 'rg' instead of 'grep'" in blocked and "needle\n" not in blocked.replace("grep needle", "")
    assert (project / "ran-with-rg").exists()                         # the allowed call really ran


def test_guard_blocks_rm_rf_and_env_reads_and_logs_what_it_allows(server, run_axon, project):
    install(project, "guard_and_log.py")
    settings(project, {"PreToolUse": [("", script("guard_and_log.py"))]})
    (project / "keep").mkdir()
    (project / "keep" / "x").write_text("precious\n")
    (project / ".env").write_text("API_TOKEN=canary-7f3a9\n")
    server.add(tool_reply(("bash", {"command": "rm -rf keep"})), tool_reply(("read_file", {"path": ".env"})),
               tool_reply(("bash", {"command": "echo allowed-call"})), text_reply("done"))
    ran = run_axon("run", "clean up", "--yes", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    assert (project / "keep" / "x").read_text() == "precious\n"
    assert "dangerous rm command" in tool_results(server.requests[1])[-1]
    env_result = tool_results(server.requests[2])[-1]
    assert "access to .env files is not allowed" in env_result
    assert all("canary-7f3a9" not in json.dumps(r.messages) for r in server.requests)   # the model never saw it
    assert "allowed-call" in tool_results(server.requests[3])[-1]
    [logged] = log(project, "pre_tool_use")
    assert logged["tool_name"] == "Bash" and logged["tool_input"]["command"] == "echo allowed-call"
    assert logged["hook_event_name"] == "PreToolUse" and logged["tool_use_id"] and logged["session_id"]


def test_logger_sees_claude_code_fields_and_tool_response(server, run_axon, project):
    install(project, "log_event.py")
    settings(project, {"PostToolUse": [("Write|Edit", script("log_event.py"))]})
    server.add(tool_reply(("write_file", {"path": "notes/a.txt", "content": "hello\n"})),
               tool_reply(("edit_file", {"path": "notes/a.txt", "old_string": "hello", "new_string": "bye"})),
               tool_reply(("bash", {"command": "echo not-logged"})), text_reply("done"))
    ran = run_axon("run", "write notes", "--yes", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    write, edit = log(project, "PostToolUse")            # Bash did not match the matcher
    path = str(project / "notes" / "a.txt")
    assert write["tool_name"] == "Write" and write["tool_input"] == {"file_path": path, "content": "hello\n"}
    assert write["tool_response"]["filePath"] == path and write["tool_response"]["success"] is True
    assert edit["tool_name"] == "Edit" and edit["tool_input"]["old_string"] == "hello"
    assert edit["tool_response"]["newString"] == "bye"
    assert Path(write["transcript_path"]).is_file() and write["cwd"] == str(project)
    assert (project / "notes" / "a.txt").read_text() == "bye\n"


def test_stop_hook_copies_the_transcript_it_parses(server, run_axon, project):
    install(project, "stop_chat.py")
    settings(project, {"Stop": [("", script("stop_chat.py") + " --chat")]})
    server.add(tool_reply(("bash", {"command": "echo from-the-tool"})), text_reply("all finished here"))
    ran = run_axon("run", "say something", "--yes", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    [stop] = log(project, "stop")
    assert stop["stop_hook_active"] is False and stop["hook_event_name"] == "Stop"
    chat = log(project, "chat")
    assert chat[0]["type"] == "user" and chat[0]["message"] == {"role": "user", "content": "say something"}
    use = next(b for line in chat if line["type"] == "assistant" for b in line["message"]["content"]
               if b["type"] == "tool_use")
    assert use["name"] == "Bash" and use["input"] == {"command": "echo from-the-tool"}
    result = next(b for line in chat if line["type"] == "user" and isinstance(line["message"]["content"], list)
                  for b in line["message"]["content"])
    assert result["type"] == "tool_result" and result["tool_use_id"] == use["id"]
    assert "from-the-tool" in result["content"]
    last = [line for line in chat if line["type"] == "assistant"][-1]
    assert last["message"]["content"] == [{"type": "text", "text": "all finished here"}]
    assert all(line["sessionId"] == stop["session_id"] and line["uuid"] for line in chat)


@needs_jq
def test_stop_loop_reprompts_until_the_transcript_holds_the_promise(server, run_axon, project):
    install(project, "loop_until_promise.sh")
    settings(project, {"Stop": [("", script("loop_until_promise.sh"))]})
    state = project / ".claude" / "loop.local.md"
    state.write_text("---\niteration: 1\nmax_iterations: 5\n---\nImprove the tests again.\n")
    server.add(text_reply("first try"), text_reply("second try"), text_reply("ok <promise>DONE</promise>"))
    ran = run_axon("run", "improve the tests", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    assert len(server.requests) == 3 and not state.exists()
    assert "Improve the tests again." in server.requests[1].messages[-1]["content"]
    assert "<promise>DONE</promise>" in ran.stdout


@needs_jq
def test_validate_bash_exit_2_keeps_the_files(server, run_axon, project):
    install(project, "validate_bash.sh")
    settings(project, {"PreToolUse": [("Bash", script("validate_bash.sh"))]})
    (project / "build").mkdir()
    (project / "build" / "out.o").write_text("object\n")
    server.add(tool_reply(("bash", {"command": "rm -rf build"})), tool_reply(("bash", {"command": "ls build"})),
               text_reply("done"))
    ran = run_axon("run", "clean", "--yes", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    assert (project / "build" / "out.o").exists()
    assert "Dangerous command: rm -rf" in tool_results(server.requests[1])[-1]
    assert "out.o" in tool_results(server.requests[2])[-1]


@needs_jq
def test_validate_write_matches_write_and_edit_by_claude_names(server, run_axon, project):
    install(project, "validate_write.sh")
    settings(project, {"PreToolUse": [("Write|Edit", script("validate_write.sh"))]})
    server.add(tool_reply(("write_file", {"path": "config/credentials.txt", "content": "pw"})),
               tool_reply(("write_file", {"path": "config/app.txt", "content": "ok"})), text_reply("done"))
    ran = run_axon("run", "write config", "--yes", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    assert not (project / "config" / "credentials.txt").exists()
    assert "Sensitive file: " + str(project / "config" / "credentials.txt") in tool_results(server.requests[1])[-1]
    assert (project / "config" / "app.txt").read_text() == "ok"


def test_json_permission_decision_deny_blocks_and_no_decision_runs(server, run_axon, project):
    install(project, "deny_json.py")
    settings(project, {"PreToolUse": [("Bash", script("deny_json.py"))]})
    server.add(tool_reply(("bash", {"command": "echo production > deployed.txt"})),
               tool_reply(("bash", {"command": "echo staging > staged.txt"})), text_reply("done"))
    ran = run_axon("run", "deploy", "--yes", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    assert not (project / "deployed.txt").exists() and (project / "staged.txt").exists()
    assert "production is off limits from this machine" in tool_results(server.requests[1])[-1]


def test_post_tool_use_context_and_block_reach_the_model(server, run_axon, project):
    install(project, "format_context.py")
    settings(project, {"PostToolUse": [("Write|Edit", script("format_context.py"))]})
    server.add(tool_reply(("write_file", {"path": "a.py", "content": "x = 1\n"})),
               tool_reply(("write_file", {"path": "b.py", "content": "# TODO later\n"})), text_reply("done"))
    ran = run_axon("run", "write code", "--yes", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    assert f"checked {project / 'a.py'}: style ok" in tool_results(server.requests[1])[-1]
    assert f"{project / 'b.py'} still has a TODO: finish it" in tool_results(server.requests[2])[-1]


def test_session_start_script_uses_claude_project_dir(server, run_axon, project):
    install(project, "session_context.sh")
    settings(project, {"SessionStart": [("", script("session_context.sh"))]})
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    server.add(text_reply("hi"))
    ran = run_axon("run", "hello", env=TRUSTED, cwd=project)
    assert ran.code == 0, ran.stderr
    assert "Python project detected" in json.dumps(server.requests[0].messages)
