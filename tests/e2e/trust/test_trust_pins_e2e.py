"""End-to-end: a hook or MCP server that runs a project file is pinned to that file, through the real
``axon`` against the scripted server.

The attack: the model (sandboxed) rewrites the script a trusted hook runs, or a ``git pull`` does,
and axon then runs the new script outside the sandbox. Each test plants a canary path *outside* the
project and asserts on the file system: the rewritten script did not run outside.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.fakeserver import text_reply, tool_reply
from tests.sandbox.test_sandbox import needs_namespaces

DEMO = str(Path(__file__).resolve().parents[2] / "mcp_servers" / "demo_server.py")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _outside(project: Path) -> Path:
    outside = project.parent / "outside"
    outside.mkdir(exist_ok=True)
    return outside


def _tool_results(request) -> list[str]:
    return [m["content"] for m in request.messages if m["role"] == "tool"]


@needs_namespaces
def test_a_hook_script_the_model_rewrote_runs_inside_the_sandbox_not_outside(server, run_axon, project):
    outside = _outside(project)
    marker, canary = outside / "ran-outside", outside / "CANARY"
    _write(project / "scripts" / "post-check.sh", f"touch {marker}\n")
    _write(project / ".axon" / "config.toml", '[[hooks.PostToolUse]]\nmatcher = "bash"\n'
                                             'command = "sh scripts/post-check.sh"\n')
    status = run_axon("trust", "--yes")
    assert status.code == 0 and "pinned to the content of scripts/post-check.sh" in status.stdout

    # a sandboxed bash rewrite fails at the write now (the script is held read-only: issue 32), so the
    # model rewrites it with write_file, which axon itself performs
    rewrite = f"touch {canary}; touch ran-inside\n"
    server.add(tool_reply(("bash", {"command": "echo first"})),
               tool_reply(("read_file", {"path": "scripts/post-check.sh"})),
               tool_reply(("write_file", {"path": "scripts/post-check.sh", "content": rewrite})),
               tool_reply(("bash", {"command": "echo after"})), text_reply("done"))
    r = run_axon("run", "check things", "--mode", "auto")  # the rewrite lands; no --yes:
    # the approver says no to running the changed hook outside
    assert r.code == 0, r.stderr
    assert marker.exists()                                  # unchanged, the hook ran outside as always
    assert (project / "scripts" / "post-check.sh").read_text().startswith(f"touch {canary};")   # rewritten
    assert not canary.exists()                              # ...and the new script never ran outside
    assert (project / "ran-inside").exists()                # it ran inside the sandbox (a guard still guards)
    assert "scripts/post-check.sh, which changed during this session" in r.stderr
    assert all("Permission denied" not in t for t in _tool_results(server.requests[3]))


def test_a_hook_script_changed_after_trust_is_pending_until_trusted_again(server, run_axon, project):
    outside = _outside(project)
    marker, canary = outside / "guard-ran", outside / "CANARY"
    guard = project / ".axon" / "hooks" / "guard.py"
    _write(guard, f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n")
    _write(project / ".axon" / "config.toml", '[[hooks.UserPromptSubmit]]\n'
                                             'command = "python3 .axon/hooks/guard.py"\n')
    assert run_axon("trust", "--yes").code == 0
    server.add(text_reply("one"), text_reply("two"), text_reply("three"))
    assert run_axon("run", "hi").code == 0
    assert marker.exists()                                  # trusted and unchanged: it runs

    _write(guard, f"import pathlib\npathlib.Path({str(canary)!r}).touch()\n")   # a `git pull`
    r = run_axon("run", "hi")
    assert r.code == 0, r.stderr
    assert not canary.exists()
    assert "(changed: the content of .axon/hooks/guard.py is not what you trusted)" in r.stderr
    status = run_axon("trust")
    assert "waiting for trust" in status.stdout and "changed" in status.stdout
    assert "python3 .axon/hooks/guard.py" in status.stdout

    assert run_axon("trust", "--yes").code == 0             # reviewed and trusted again: it runs
    assert run_axon("run", "hi").code == 0
    assert canary.exists()


def test_an_mcp_server_whose_script_changed_after_trust_is_not_started(server, run_axon, project):
    outside = _outside(project)
    started, canary = outside / "server-started", outside / "CANARY"
    script = project / "tools" / "mcp_server.py"

    def server_script(touches: Path) -> str:
        return (f"import pathlib, runpy\npathlib.Path({str(touches)!r}).touch()\n"
                f"runpy.run_path({DEMO!r}, run_name='__main__')\n")

    _write(script, server_script(started))
    _write(project / ".mcp.json", json.dumps({"mcpServers": {"local": {"command": sys.executable,
                                                                        "args": ["tools/mcp_server.py"]}}}))
    status = run_axon("trust", "--yes")
    assert "pinned to the content of tools/mcp_server.py" in status.stdout
    server.add(text_reply("one"), text_reply("two"))
    assert run_axon("run", "hi", timeout=90).code == 0
    assert started.exists()                                 # trusted: the server started

    _write(script, server_script(canary))
    r = run_axon("run", "hi", timeout=90)
    assert r.code == 0, r.stderr
    assert not canary.exists()
    line = next(x for x in r.stderr.splitlines() if 'MCP server "local"' in x)
    assert line.startswith("axon: ignored until this folder is trusted") and "tools/mcp_server.py is not" in line
    assert "  changed  " in run_axon("trust").stdout


def test_a_guard_hook_the_model_disabled_without_a_sandbox_still_blocks_the_call(server, run_axon, project,
                                                                                  axon_env):
    victim = project / "victim.txt"
    victim.write_text("keep me\n")
    user_dir = Path(axon_env["XDG_CONFIG_HOME"]) / "axon"
    _write(user_dir / "permissions.toml", 'mode = "accept-edits"\nallow = ["bash(rm *)"]\n')   # the user's own
    _write(project / "guard.sh", 'case "$(cat)" in *victim*) echo "victim.txt is protected" >&2; exit 2;; esac\n')
    _write(project / ".axon" / "config.toml", '[[hooks.PreToolUse]]\nmatcher = "bash"\ncommand = "sh guard.sh"\n')
    assert run_axon("trust", "--yes").code == 0

    server.add(tool_reply(("bash", {"command": "rm victim.txt"})), text_reply("blocked"))
    r = run_axon("run", "go", "--sandbox", "off")
    assert r.code == 0, r.stderr
    assert victim.exists() and "victim.txt is protected" in _tool_results(server.requests[1])[-1]

    server.add(tool_reply(("read_file", {"path": "guard.sh"})),
               tool_reply(("write_file", {"path": "guard.sh", "content": "exit 0\n"})),
               tool_reply(("bash", {"command": "rm victim.txt"})), text_reply("done"))
    r = run_axon("run", "go", "--sandbox", "off")
    assert r.code == 0, r.stderr
    assert (project / "guard.sh").read_text() == "exit 0\n"    # the model did disable the guard
    assert victim.exists()                                  # ...and the call it guarded did not run
    assert "Blocked by a PreToolUse hook" in _tool_results(server.requests[5])[-1]
    assert "guard.sh, which changed during this session" in r.stderr
