"""End-to-end: ``axon_cli.app.sdk`` in a real Python process (its own HOME) against the scripted server.

Each test runs a small program with the venv's interpreter, as a user's program would import axon,
and asserts on what it printed, the files on disk and what the scripted model was sent.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.fakeserver import text_reply, tool_reply


def program(project: Path, axon_env: dict[str, str], source: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(source)], cwd=project, env=axon_env,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def test_run_is_the_one_liner_of_the_contract(server, project, axon_env):
    server.add(text_reply("The package is at 0.1.0."))
    ran = program(project, axon_env, f"""
        from axon_cli import sdk
        print(sdk.run("what version?", cwd={str(project)!r}).result)
    """)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "The package is at 0.1.0.\n"
    assert ran.stderr == ""                       # the SDK never prints
    assert server.requests[0].conversation[-1] == {"role": "user", "content": "what version?"}


def test_an_edit_approved_by_the_callback_lands_and_the_result_names_it(server, project, axon_env):
    (project / "a.txt").write_text("colour\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"})),
               tool_reply(("edit_file", {"path": "a.txt", "old_string": "colour", "new_string": "color"})),
               text_reply("fixed"))
    ran = program(project, axon_env, f"""
        import json
        from axon_cli import sdk
        asked = []
        def approve(request):
            asked.append(request.tool)
            return True
        r = sdk.run("fix the spelling", cwd={str(project)!r}, approve=approve)
        print(json.dumps({{"result": r.result, "error": r.is_error, "changed": r.changed_files, "asked": asked,
                           "turns": r.num_turns, "sid": r.session_id,
                           "types": [e.type for e in r.events]}}))
    """)
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout)
    assert (project / "a.txt").read_text() == "color\n"
    assert out["asked"] == ["edit_file"] and out["changed"] == ["a.txt"] and out["turns"] == 3
    assert out["result"] == "fixed" and out["error"] is False
    assert (project / ".axon" / "sessions" / f"{out['sid']}.jsonl").is_file()
    assert "tool_call_begin" in out["types"] and out["types"][-1] == "turn_complete"


def test_a_denial_with_a_reason_reaches_the_model_and_nothing_changes(server, project, axon_env):
    (project / "a.txt").write_text("keep me\n")
    server.add(tool_reply(("bash", {"command": "rm a.txt"})), text_reply("ok, left it"))
    ran = program(project, axon_env, f"""
        from axon_cli import sdk
        async def approve(request):               # an async callback
            return "not today: the file is needed"
        print(sdk.run("delete a.txt", cwd={str(project)!r}, approve=approve).result)
    """)
    assert ran.returncode == 0, ran.stderr
    assert (project / "a.txt").read_text() == "keep me\n"
    tool_msg = server.requests[1].messages[-1]
    assert tool_msg["role"] == "tool" and "not today: the file is needed" in tool_msg["content"]


def test_without_a_callback_a_call_that_asks_is_refused(server, project, axon_env):
    (project / "a.txt").write_text("keep me\n")
    server.add(tool_reply(("bash", {"command": "rm a.txt"})), text_reply("could not"))
    ran = program(project, axon_env, f"""
        from axon_cli import sdk
        print(sdk.run("delete a.txt", cwd={str(project)!r}).result)
    """)
    assert ran.returncode == 0, ran.stderr
    assert (project / "a.txt").exists()
    assert server.requests[1].messages[-1]["content"].startswith("Permission denied")


def test_query_yields_the_typed_events_of_stream_json(server, project, axon_env):
    (project / "a.txt").write_text("hello\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"})), text_reply("it says hello"))
    ran = program(project, axon_env, f"""
        import asyncio, json
        from axon_cli import sdk
        from axon_cli.kernel.events import ToolCallEnd, TurnComplete
        async def main():
            seen = []
            async for event in sdk.query("read a.txt", cwd={str(project)!r}):
                seen.append(event)
            ends = [e for e in seen if isinstance(e, ToolCallEnd)]
            print(json.dumps({{"types": [e.type for e in seen], "end_ok": [e.ok for e in ends],
                               "final": [e.result for e in seen if isinstance(e, TurnComplete)]}}))
        asyncio.run(main())
    """)
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout)
    assert out["types"][0] == "session_started" and out["types"][-1] == "turn_complete"
    assert "tool_call_begin" in out["types"] and out["end_ok"] == [True]
    assert out["final"] == ["it says hello"]


def test_session_continues_and_undo_puts_the_file_back(server, project, axon_env):
    (project / "a.txt").write_text("one\n")
    server.add(tool_reply(("write_file", {"path": "b.txt", "content": "new\n"})), text_reply("wrote b"),
               text_reply("second answer"))
    ran = program(project, axon_env, f"""
        import json, os
        from axon_cli import sdk
        with sdk.Session(cwd={str(project)!r}, mode="accept-edits") as s:
            first = s.send("write b.txt")
            existed = os.path.exists("b.txt")
            second = s.send("and now?")
            lines = s.undo(2)
            print(json.dumps({{"first": first.result, "second": second.result, "same": first.session_id == second.session_id,
                               "existed": existed, "undo": lines}}))
    """)
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout)
    assert out["first"] == "wrote b" and out["second"] == "second answer" and out["same"] and out["existed"]
    assert not (project / "b.txt").exists()                # undone
    convo = server.requests[2].conversation
    assert [m["content"] for m in convo if m["role"] == "user"][:2] == ["write b.txt", "and now?"]


def test_an_in_process_tool_is_offered_and_called(server, project, axon_env):
    server.add(tool_reply(("shout", {"text": "hi"})), text_reply("done"))
    ran = program(project, axon_env, f"""
        from axon_cli import sdk, tool
        @tool(risk="read")
        def shout(text: str) -> str:
            \"\"\"Upper-case a text.\"\"\"
            return text.upper() + "!"
        print(sdk.run("shout hi", cwd={str(project)!r}, tools=[shout]).result)
    """)
    assert ran.returncode == 0, ran.stderr
    assert "shout" in server.requests[0].tool_names
    assert server.requests[1].messages[-1]["content"] == "HI!"


def test_a_bad_mode_is_one_error_not_a_traceback(server, project, axon_env):
    ran = program(project, axon_env, f"""
        from axon_cli import sdk
        from axon_cli.kernel.errors import AxonError
        try:
            sdk.run("x", cwd={str(project)!r}, mode="everything")
        except AxonError as e:
            print("error:", str(e).splitlines()[0][:60])
    """)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("error:") and not server.requests


def test_hooks_are_python_callables_that_see_the_call_and_can_block_it(server, project, axon_env):
    (project / "a.txt").write_text("keep\n")
    server.add(tool_reply(("bash", {"command": "rm a.txt"}), ("read_file", {"path": "a.txt"})),
               text_reply("blocked, as the hook said"))
    ran = program(project, axon_env, f"""
        import json
        from axon_cli import sdk
        seen = []
        def guard(payload):
            seen.append((payload["hook_event_name"], payload["tool_name"], payload["tool_input"]))
            if payload["tool_name"] == "Bash":
                return {{"hookSpecificOutput": {{"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                                "permissionDecisionReason": "no shell today"}}}}
        async def after(payload):
            seen.append((payload["hook_event_name"], payload["tool_name"], None))
        r = sdk.run("clean up", cwd={str(project)!r}, approve=lambda request: True,
                    hooks={{"PreToolUse": [guard], "PostToolUse": [("Read", after)]}})
        print(json.dumps({{"seen": seen, "result": r.result}}))
    """)
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout)
    assert (project / "a.txt").read_text() == "keep\n"               # the hook's deny held, even with approve=True
    assert ["PreToolUse", "Bash", {"command": "rm a.txt"}] in out["seen"]
    assert ["PostToolUse", "Read", None] in out["seen"]
    bash_result = [m for m in server.requests[1].messages if m["role"] == "tool"][0]
    assert "no shell today" in bash_result["content"]
