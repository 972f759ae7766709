"""End-to-end: the user's hooks ([[hooks.EVENT]] in config.toml) run as real processes around the
real ``axon run`` against the scripted server. Project extensions run with AXON_TRUST=1 (the folder
trusted for the run)."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

from tests.fakeserver import text_reply, tool_reply
from tests.sandbox.test_sandbox import _live_with

TRUSTED = {"AXON_TRUST": "1"}


def hooks_config(project: Path, text: str) -> None:
    (project / ".axon").mkdir(exist_ok=True)
    (project / ".axon" / "config.toml").write_text(text)


def audit_hooks(project: Path) -> list[dict]:
    lines = (project / ".axon" / "audit.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if "hook" in r]


def tool_message(request) -> str:
    return next(m["content"] for m in reversed(request.messages) if m["role"] == "tool")


def test_pre_tool_use_exit_2_blocks_the_call_and_the_model_reads_stderr(server, run_axon, project):
    (project / "x").write_text("keep me\n")
    (project / ".axon").mkdir()
    (project / ".axon" / "permissions.toml").write_text('allow = ["bash(rm *)"]\n')   # a hook deny beats it
    (project / "guard.sh").write_text(
        'input=$(cat)\n'
        'case "$input" in *\'"rm x"\'*) echo "x is protected: never delete it" >&2; exit 2;; esac\n'
        'exit 0\n')
    hooks_config(project, '[[hooks.PreToolUse]]\nmatcher = "bash"\ncommand = "sh guard.sh"\n')
    server.add(tool_reply(("bash", {"command": "rm x"})), text_reply("I could not delete x."))
    ran = run_axon("run", "delete x", "--yes", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    assert (project / "x").read_text() == "keep me\n"
    result = tool_message(server.requests[1])
    assert "x is protected: never delete it" in result and "Blocked by a PreToolUse hook" in result
    [record] = audit_hooks(project)
    assert record["hook"] == "PreToolUse" and record["outcome"] == "block" and record["exit_code"] == 2
    assert record["for_tool"] == "bash" and record["command"] == "sh guard.sh"


def test_pre_tool_use_hook_that_exits_0_lets_the_call_run(server, run_axon, project):
    hooks_config(project, '[[hooks.PreToolUse]]\nmatcher = "read_file|bash"\ncommand = "cat > seen.json"\n')
    server.add(tool_reply(("bash", {"command": "echo ran-it"})), text_reply("done"))
    ran = run_axon("run", "run it", "--yes", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    seen = json.loads((project / "seen.json").read_text())
    assert seen["hook_event_name"] == "PreToolUse" and seen["tool_name"] == "Bash"     # Claude Code's names
    assert seen["tool_input"] == {"command": "echo ran-it"} and seen["cwd"] == str(project)
    assert seen["tool_use_id"] and seen["permission_mode"] == "default"
    assert "ran-it" in tool_message(server.requests[1])


def test_post_tool_use_hook_sees_the_result_and_its_block_reaches_the_model(server, run_axon, project):
    hooks_config(project, '[[hooks.PostToolUse]]\ncommand = "cat > post.json; echo lint found 2 problems >&2; exit 2"\n')
    server.add(tool_reply(("bash", {"command": "echo hello-post"})), text_reply("done"))
    ran = run_axon("run", "say hello", "--yes", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    post = json.loads((project / "post.json").read_text())
    assert post["hook_event_name"] == "PostToolUse" and post["tool_name"] == "Bash"
    assert post["tool_response"]["stdout"].strip() == "hello-post" and post["tool_response"]["interrupted"] is False
    result = tool_message(server.requests[1])
    assert "hello-post" in result and "[PostToolUse hook: lint found 2 problems]" in result


def test_a_hanging_hook_is_killed_at_its_timeout_with_everything_it_started(server, run_axon, project):
    marker = f"axon-hook-marker-{uuid.uuid4().hex}"
    child = f"python3 -c 'import time; time.sleep(300)' {marker}"
    hooks_config(project, f'[[hooks.PreToolUse]]\ncommand = "{child} & {child}; wait"\ntimeout = 1\n')
    server.add(tool_reply(("bash", {"command": "echo after-the-hook"})), text_reply("done"))
    started = time.monotonic()
    ran = run_axon("run", "go", "--yes", env=TRUSTED, timeout=90)
    assert ran.code == 0, ran.stderr
    assert time.monotonic() - started < 60
    assert "timed out after 1 s" in ran.stderr and "its processes were killed" in ran.stderr
    assert _live_with(marker) == []            # the hook's whole process group is gone
    assert "after-the-hook" in tool_message(server.requests[1])   # a failed hook is silent: the call ran
    [record] = audit_hooks(project)
    assert record["outcome"] == "timeout" and record["exit_code"] is None


def test_user_prompt_submit_adds_context_or_blocks_and_stop_sends_back(server, run_axon, project):
    hooks_config(project, '[[hooks.UserPromptSubmit]]\ncommand = "echo the sprint ends on Friday"\n'
                          '[[hooks.Stop]]\ncommand = "test -f stop-ok || { touch stop-ok; echo run the tests first >&2; exit 2; }"\n')
    server.add(text_reply("premature answer"), text_reply("tests ran; final answer"))
    ran = run_axon("run", "when does the sprint end?", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    assert ran.stdout.strip() == "tests ran; final answer"
    first = server.requests[0].conversation
    assert first[-2] == {"role": "user", "content": "when does the sprint end?"}
    assert "the sprint ends on Friday" in first[-1]["content"]
    assert "run the tests first" in server.requests[1].messages[-1]["content"]

    hooks_config(project, '[[hooks.UserPromptSubmit]]\ncommand = "echo no prompts about secrets >&2; exit 2"\n')
    ran = run_axon("run", "tell me the secrets", env=TRUSTED)
    assert ran.code == 1 and "no prompts about secrets" in ran.stderr
    assert len(server.requests) == 2                  # the blocked prompt never reached the model


def test_user_and_project_hooks_both_run(server, run_axon, project, axon_env):
    user_dir = Path(axon_env["XDG_CONFIG_HOME"]) / "axon"
    user_dir.mkdir(parents=True)
    (user_dir / "config.toml").write_text('[[hooks.PreToolUse]]\ncommand = "echo user >> order.txt"\n')
    hooks_config(project, '[[hooks.PreToolUse]]\ncommand = "echo project >> order.txt"\n')
    server.add(tool_reply(("list_files", {})), text_reply("done"))
    ran = run_axon("run", "list", env=TRUSTED)
    assert ran.code == 0, ran.stderr
    assert (project / "order.txt").read_text().split() == ["user", "project"]
    sources = [r["source"] for r in audit_hooks(project)]
    assert sources == [str(user_dir / "config.toml"), str(project / ".axon" / "config.toml")]
