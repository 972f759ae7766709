"""``[diagnostics]`` commands through the real ``axon run --yes``: a configured checker's new output
reaches the model in the edit's tool result, old output does not, a slow checker never holds up the
edit, and a project's command runs only in a trusted folder (and never outside a sandbox when it
would run what the model wrote)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from tests.fakeserver import text_reply, tool_reply

CHECKER = '''import sys
name = sys.argv[1]
for number, line in enumerate(open(name), 1):
    if "TODO" in line:
        print(f"{name}:{number}: leftover marker: {line.strip()}")
sys.exit(1 if "TODO" in open(name).read() else 0)
'''


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _last_tool_result(server) -> str:  # type: ignore[no-untyped-def]
    return [m["content"] for r in server.requests for m in r.messages[-1:] if m["role"] == "tool"][-1]


def _edit_notes(server, run_axon, old: str, new: str, *args: str):  # type: ignore[no-untyped-def]
    server.add(tool_reply(("read_file", {"path": "notes.txt"})),
               tool_reply(("edit_file", {"path": "notes.txt", "old_string": old, "new_string": new})),
               text_reply("done"))
    return run_axon("run", "go", "--yes", *args)


def test_a_trusted_checker_reports_what_the_edit_introduced_and_not_what_was_there(server, run_axon, project):
    _write(project / "check.py", CHECKER)
    _write(project / ".axon" / "config.toml", '[diagnostics]\n"*.txt" = "python3 check.py {file}"\n')
    _write(project / "notes.txt", "alpha\nTODO old one\nomega\n")
    assert run_axon("trust", "--yes").code == 0
    # a line added above the old problem moves it (line 2 -> 3): still not reported as new
    r = _edit_notes(server, run_axon, "alpha\n", "alpha\nTODO new one\n")
    assert r.code == 0, r.stderr
    assert (project / "notes.txt").read_text() == "alpha\nTODO new one\nTODO old one\nomega\n"
    result = _last_tool_result(server)
    assert "notes.txt:2: leftover marker: TODO new one" in result
    assert "TODO old one" not in result.split("diagnostics (")[1]
    assert "introduced 1 new line" in result


def test_an_edit_that_adds_no_problem_appends_nothing(server, run_axon, project):
    _write(project / "check.py", CHECKER)
    _write(project / ".axon" / "config.toml", '[diagnostics]\n"*.txt" = "python3 check.py {file}"\n')
    _write(project / "notes.txt", "alpha\nTODO old one\nomega\n")
    r = _edit_notes(server, run_axon, "omega\n", "omega\nzeta\n", "--trust")
    assert r.code == 0, r.stderr
    assert "zeta" in (project / "notes.txt").read_text()
    result = _last_tool_result(server)
    assert result.startswith("--- a/notes.txt") and "diagnostics" not in result


def test_a_slow_checker_is_stopped_and_the_edit_lands(server, run_axon, project):
    _write(project / ".axon" / "config.toml",
           'diagnostics_timeout = 1.0\n[diagnostics]\n"*.txt" = "sleep 60; echo DONE-SLEEPING {file} | tr A-Z a-z"\n')
    _write(project / "notes.txt", "alpha\n")
    started = time.monotonic()
    r = _edit_notes(server, run_axon, "alpha\n", "beta\n", "--trust")
    assert r.code == 0, r.stderr
    assert time.monotonic() - started < 45      # not held by the 60-s sleep (generous on a busy machine)
    assert (project / "notes.txt").read_text() == "beta\n"
    result = _last_tool_result(server)
    assert result.startswith("--- a/notes.txt") and "done-sleeping" not in result
    assert "took over 1 s and was stopped" in result


def test_an_untrusted_project_command_never_runs_and_trust_lists_it(server, run_axon, project):
    canary = project.parent / "canary"
    _write(project / ".axon" / "config.toml", f'[diagnostics]\n"*.txt" = "touch {canary}"\n')
    _write(project / "notes.txt", "alpha\n")
    # no sandbox, so a command that ran would leave the canary on the host
    r = _edit_notes(server, run_axon, "alpha\n", "beta\n", "--sandbox", "off")
    assert r.code == 0, r.stderr
    assert (project / "notes.txt").read_text() == "beta\n"
    assert not canary.exists()
    assert f'diagnostics for "*.txt" runs: touch {canary}' in r.stderr

    listed = run_axon("trust")
    assert "waiting for trust" in listed.stdout and f'diagnostics for "*.txt" runs: touch {canary}' in listed.stdout
    assert run_axon("trust", "--yes").code == 0
    r = _edit_notes(server, run_axon, "beta\n", "gamma\n", "--sandbox", "off")
    assert r.code == 0, r.stderr
    assert canary.exists()                          # trusted: the same command ran


def test_without_a_sandbox_a_command_running_a_file_the_model_wrote_does_not_run(server, run_axon, project):
    # the user's own config: "run the edited shell script" — with no sandbox that would run the model's code
    _write(project.parent / "home" / ".config" / "axon" / "config.toml", '[diagnostics]\n"*.sh" = "sh {file}"\n')
    canary = project / "ran"
    script = {"path": "x.sh", "content": f"touch {canary}\n"}
    server.add(tool_reply(("write_file", script)), text_reply("done"))
    r = run_axon("run", "go", "--yes", "--sandbox", "off")
    assert r.code == 0, r.stderr
    assert (project / "x.sh").read_text() == f"touch {canary}\n" and not canary.exists()
    assert "was not run: it runs a file changed in this session" in _last_tool_result(server)

    # inside the sandbox the model's bash could run it too, so the check runs there
    (project / "x.sh").unlink()
    server.add(tool_reply(("write_file", script)), text_reply("done"))
    r = run_axon("run", "go", "--yes")
    assert r.code == 0, r.stderr
    assert canary.exists()


def test_without_a_sandbox_a_checker_script_the_model_rewrote_does_not_run(server, run_axon, project):
    _write(project / "check.py", CHECKER)
    _write(project / "notes.txt", "alpha\n")
    _write(project.parent / "home" / ".config" / "axon" / "config.toml",
           '[diagnostics]\n"*.txt" = "python3 check.py {file}"\n')
    canary = project.parent / "canary"
    server.add(tool_reply(("read_file", {"path": "check.py"}), ("read_file", {"path": "notes.txt"})),
               tool_reply(("write_file", {"path": "check.py", "content": f"open({str(canary)!r}, 'w')\n"})),
               tool_reply(("edit_file", {"path": "notes.txt", "old_string": "alpha\n", "new_string": "TODO\n"})),
               text_reply("done"))
    r = run_axon("run", "go", "--yes", "--sandbox", "off")
    assert r.code == 0, r.stderr
    assert (project / "notes.txt").read_text() == "TODO\n" and "canary" in (project / "check.py").read_text()
    assert not canary.exists()
    assert "was not run: it runs a file changed in this session" in _last_tool_result(server)


def _language_server_on_path(tmp: Path) -> dict[str, str]:
    """``bash-language-server`` on PATH: the fake server of this folder, copied beside it (an install
    on PATH is what the sandbox keeps visible; this checkout may live under /tmp, which it hides)."""
    bin_dir = tmp / "bin"
    fake = bin_dir / "fake_language_server.py"
    _write(fake, Path(__file__).with_name("fake_language_server.py").read_text())
    _write(bin_dir / "bash-language-server", f'#!/bin/sh\nexec "{sys.executable}" "{fake}"\n')
    (bin_dir / "bash-language-server").chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "FAKE_LS_CANARY": str(tmp / "ls-canary")}


def _edit_script(server, run_axon, env, *args):  # type: ignore[no-untyped-def]
    server.add(tool_reply(("read_file", {"path": "run.sh"})),
               tool_reply(("edit_file", {"path": "run.sh", "old_string": "echo hi\n", "new_string": "BAD new\necho hi\n"})),
               text_reply("done"))
    return run_axon("run", "go", "--yes", *args, env=env)


def test_a_language_server_on_path_reports_what_the_edit_introduced_inside_the_sandbox(server, run_axon, project):
    env = _language_server_on_path(project.parent)
    # the whole check (sandbox, server start, two publishes) must fit the limit on a busy machine too
    _write(project / ".axon" / "config.toml", "diagnostics_timeout = 60\n")
    _write(project / "run.sh", "echo hi\nBAD old\n")
    r = _edit_script(server, run_axon, env)
    assert r.code == 0, r.stderr
    assert (project / "run.sh").read_text() == "BAD new\necho hi\nBAD old\n"
    result = _last_tool_result(server)
    assert "diagnostics (language server bash-language-server)" in result, (result, r.stderr)
    assert "run.sh:1:1: bad word" in result and "1 | BAD new" in result
    assert "BAD old" not in result.split("diagnostics (")[1]
    assert (project / "ran-inside").exists()                 # it ran, in the project …
    assert not (project.parent / "ls-canary").exists()       # … and its write outside stayed in the sandbox


def test_a_language_server_never_runs_without_a_sandbox(server, run_axon, project):
    env = _language_server_on_path(project.parent)
    _write(project / "run.sh", "echo hi\n")
    r = _edit_script(server, run_axon, env, "--sandbox", "off")
    assert r.code == 0, r.stderr
    assert (project / "run.sh").read_text() == "BAD new\necho hi\n"
    assert not (project / "ran-inside").exists() and not (project.parent / "ls-canary").exists()
    assert "diagnostics" not in _last_tool_result(server)


def test_a_language_server_that_never_answers_does_not_hold_up_the_edit(server, run_axon, project):
    env = _language_server_on_path(project.parent)
    _write(project.parent / "bin" / "bash-language-server", "#!/bin/sh\nexec sleep 60\n")
    _write(project / ".axon" / "config.toml", "diagnostics_timeout = 1.0\n")
    _write(project / "run.sh", "echo hi\n")
    started = time.monotonic()
    r = _edit_script(server, run_axon, env)
    assert r.code == 0, r.stderr
    assert time.monotonic() - started < 45      # not held by the 60-s sleep (generous on a busy machine)
    assert (project / "run.sh").read_text() == "BAD new\necho hi\n"
    assert _last_tool_result(server).startswith("--- a/run.sh") and "diagnostics" not in _last_tool_result(server)


def test_diagnostics_lsp_false_leaves_the_language_server_alone(server, run_axon, project):
    env = _language_server_on_path(project.parent)
    _write(project / ".axon" / "config.toml", "diagnostics_lsp = false\n")
    _write(project / "run.sh", "echo hi\n")
    r = _edit_script(server, run_axon, env)
    assert r.code == 0, r.stderr
    assert (project / "run.sh").read_text() == "BAD new\necho hi\n" and not (project / "ran-inside").exists()
