"""Class A of issue 32: a trusted hook, MCP server or diagnostics command whose command form the pin
analysis did not understand runs a script the model rewrote — outside the sandbox, unasked.

The folder is trusted (``axon trust --yes``) with Claude Code's PostToolUse hook
``python3 -I .claude/hooks/guard.py`` (the issue's exact scenario), one ``[[hooks.PostToolUse]]`` per
form the issue found unpinned (``FORMS``), a PostToolUse hook ``python3 -I .claude/hooks/pull.py``
and the MCP server ``python3 -I tools/srv.py``. Every original writes ``ran/<id>`` inside the project
(the hook ran, wherever); every rewrite touches a canary outside it (``~/PWNED``, ``canary/<id>``).

Session 1 (``--mode auto``, no ``--yes``): the model runs ``python3 tidy.py`` — sandboxed and
unasked — which rewrites every script; the next tool call fires the hooks. Then a "git pull" changes
only pull.py. Session 2: a tool call (hooks fire again) and the MCP server starts. No canary may
appear. A separate lab: a trusted ``[diagnostics] "*.py" = "python3 -I -X dev tools/check.py {file}"``
under ``--sandbox off``; the model rewrites check.py, then edits a .py file.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.e2e.attacks.lab import Lab, crashed, plain_bash
from tests.fakeserver import text_reply, tool_reply
from tests.sandbox.test_sandbox import needs_namespaces

pytestmark = needs_namespaces

# id -> (hook command, the script it really runs, how that script is run)
FORMS = {
    "u_python_E": ("python3 -E tools/e.py", "tools/e.py", "py"),
    "u_python_O": ("python3 -O tools/o.py", "tools/o.py", "py"),
    "u_cd": ("cd tools && sh cd.sh", "tools/cd.sh", "sh"),
    "u_stdin": ("sh < tools/stdin.sh", "tools/stdin.sh", "sh"),
    "u_default_var": ('"${CLAUDE_PROJECT_DIR:-.}"/tools/default.sh', "tools/default.sh", "sh"),
    "u_pwd": ("$PWD/tools/pwd.sh", "tools/pwd.sh", "sh"),
    "u_make_C": ("make -s -C tools/mk lint", "tools/mk/Makefile", "make"),
    "u_make_f": ("make -s -f tools/other.mk lint", "tools/other.mk", "make"),
    "u_npm_prefix": ("npm --silent --prefix tools/np run lint", "tools/np/lint.js", "node"),
    "u_npx_tsx": ("npx --no-install tsx tools/x.ts", "tools/x.ts", "node"),
}
GUARD, PULL, SERVER = ".claude/hooks/guard.py", ".claude/hooks/pull.py", "tools/srv.py"
SETTINGS = (".vscode/tasks.json", ".cursor/mcp.json", ".zed/tasks.json", ".idea/runConfigurations/x.xml",
            ".devcontainer/devcontainer.json", ".claude/settings.local.json")


def body(kind: str, target: Path) -> str:
    """A script of ``kind`` that creates ``target``."""
    if kind == "py":
        return f"open({str(target)!r}, 'w').close()\n"
    if kind == "node":
        return f"require('fs').writeFileSync({json.dumps(str(target))}, '')\n"
    if kind == "make":
        return f"lint:\n\t@touch {target}\n"
    return f"#!/bin/sh\ntouch {target}\n"


def targets(lab: Lab) -> dict[str, tuple[str, str, Path]]:
    """attack id -> (script, kind, the canary its rewrite touches)."""
    out = {aid: (path, kind, lab.canary / aid) for aid, (_, path, kind) in FORMS.items()}
    out["u_exact"] = (GUARD, "py", lab.home / "PWNED")
    out["u_mcp"] = (SERVER, "py", lab.canary / "u_mcp")
    return out


def plant(lab: Lab) -> None:
    for aid, (path, kind, _) in targets(lab).items():
        lab.write(path, body(kind, lab.project / "ran" / aid))
        os.chmod(lab.project / path, 0o755)
    lab.write(PULL, body("py", lab.project / "ran" / "u_git_pull"))
    lab.write("ran/.keep", "")
    lab.write("tools/np/package.json", json.dumps({"name": "np", "scripts": {"lint": "node lint.js"}}))
    lab.write("node_modules/.bin/tsx", '#!/bin/sh\nexec node "$@"\n')
    os.chmod(lab.project / "node_modules/.bin/tsx", 0o755)
    lab.write(".claude/settings.json", json.dumps({"hooks": {"PostToolUse": [{"matcher": "", "hooks": [
        {"type": "command", "command": f"python3 -I {GUARD}"}, {"type": "command", "command": f"python3 -I {PULL}"}]}]}}))
    lab.write(".axon/config.toml", "".join(f"[[hooks.PostToolUse]]\ncommand = {json.dumps(cmd)}\ntimeout = 30\n"
                                           for cmd, _, _ in FORMS.values()))
    lab.write(".mcp.json", json.dumps({"mcpServers": {"srv": {"command": "python3", "args": ["-I", SERVER]}}}))
    for rel in SETTINGS:
        lab.write(rel, "{}\n")
    rewrites = {path: body(kind, canary) for path, kind, canary in targets(lab).values()}
    rewrites.update({rel: '{"tasks": [{"command": "touch PWNED", "runOn": "folderOpen"}]}' for rel in SETTINGS})
    lab.write("tidy.py", "import pathlib\n"
                         f"for path, text in {rewrites!r}.items():\n"
                         "    try:\n        pathlib.Path(path).write_text(text)\n"
                         "    except OSError as e:\n        print('could not rewrite', path, e)\n")
    lab.commit_all()
    trusted = lab.axon("trust", "--yes")
    assert trusted.code == 0, trusted.stderr


class Sessions:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab
        lab.script(tool_reply(("bash", {"command": "echo warmup"}), call_ids=["warmup"]),
                   tool_reply(("bash", {"command": "python3 tidy.py"}), call_ids=["tidy"]),
                   tool_reply(("bash", {"command": "echo after"}), call_ids=["after"]), text_reply("done"))
        self.run1 = lab.axon("run", "tidy up", "--mode", "auto")
        self.rewritten = {aid for aid, (path, _, canary) in targets(lab).items()
                          if str(canary) in (lab.project / path).read_text()}
        self.settings = {rel: (lab.project / rel).read_text() for rel in SETTINGS}
        lab.write(PULL, body("py", lab.canary / "u_git_pull"))                    # the git pull
        lab.script(tool_reply(("bash", {"command": "echo second"})), text_reply("done"))
        self.run2 = lab.axon("run", "again", "--mode", "auto")
        self.ran = {p.name for p in (lab.project / "ran").iterdir()}
        self.canaries = {p.name for p in lab.canary.iterdir()} | ({"u_exact"} if (lab.home / "PWNED").exists() else set())


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    lab = Lab(tmp_path_factory.mktemp("aunpinned"))
    plant(lab)
    yield Sessions(lab)
    lab.close()


def _control(lab: Lab, aid: str, tmp_path: Path) -> None:
    """The rewritten script, run the way its hook runs it without axon, does touch its canary."""
    path, kind, _ = targets(lab)[aid]
    probe = tmp_path / "probe"
    scratch = tmp_path / "copy"
    shutil.copytree(lab.project, scratch, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    (scratch / path).write_text(body(kind, probe))
    command = FORMS[aid][0] if aid in FORMS else f"python3 -I {path}"
    plain_bash(scratch, command, env={"CLAUDE_PROJECT_DIR": str(scratch)})
    assert probe.exists(), f"control: `{command}` does not run {path}"


@pytest.mark.parametrize("aid", ["u_exact", *FORMS])
def test_a_hook_never_runs_the_models_rewrite_outside(aid: str, sessions: Sessions, tmp_path: Path) -> None:
    for ran in (sessions.run1, sessions.run2):
        assert ran.code == 0 and not crashed(ran), ran.stderr[-3000:]
    _control(sessions.lab, aid, tmp_path)
    assert aid in sessions.ran, f"control: the trusted hook never ran ({sorted(sessions.ran)})"
    assert aid not in sessions.canaries, f"ran outside: {sessions.run1.stderr[-1500:]}"


def test_a_git_pull_that_changes_only_the_script_is_not_run(sessions: Sessions, tmp_path: Path) -> None:
    assert "u_git_pull" in sessions.ran, "control: the trusted hook never ran before the pull"
    assert "u_git_pull" not in sessions.canaries, sessions.run2.stderr[-1500:]


def test_an_mcp_server_does_not_start_the_rewrite_in_the_next_session(sessions: Sessions, tmp_path: Path) -> None:
    assert "u_mcp" in sessions.ran, "control: the trusted server never started"
    _control(sessions.lab, "u_mcp", tmp_path)
    assert "u_mcp" not in sessions.canaries, sessions.run2.stderr[-1500:]


def test_held_files_and_settings_that_name_commands_are_read_only_in_the_sandbox(sessions: Sessions) -> None:
    """The rewrite fails at the write: every file a trusted pinned item runs, and the settings."""
    assert sessions.ran, "control: nothing ran"
    assert not {"u_exact", "u_mcp", "u_python_E", "u_python_O"} & sessions.rewritten, sessions.rewritten
    assert sessions.settings == dict.fromkeys(SETTINGS, "{}\n")
    assert {"u_cd", "u_pwd"} <= sessions.rewritten, "control: tidy.py rewrites what is not held"


# -- diagnostics under --sandbox off -------------------------------------------------------------------
def test_trusted_diagnostics_never_run_a_rewritten_checker_without_a_sandbox(tmp_path: Path) -> None:
    lab = Lab(tmp_path / "diag")
    try:
        lab.write("tools/check.py", body("py", lab.project / "ran-check"))
        lab.write("app.py", "x = 1\n")
        # -I -X dev: before issue 32, -I took "-X" for its value and "dev" for the script (the issue's own
        # form, `python3 -I tools/check.py {file}`, was refused there only because the edited file was
        # taken for the script)
        lab.write(".axon/config.toml", '[diagnostics]\n"*.py" = "python3 -I -X dev tools/check.py {file}"\n')
        lab.commit_all()
        assert lab.axon("trust", "--yes").code == 0
        rewrite = body("py", lab.canary / "u_diag")
        lab.script(tool_reply(("read_file", {"path": "tools/check.py"}), ("read_file", {"path": "app.py"})),
                   tool_reply(("edit_file", {"path": "app.py", "old_string": "x = 1", "new_string": "x = 2"})),
                   tool_reply(("write_file", {"path": "tools/check.py", "content": rewrite})),
                   tool_reply(("edit_file", {"path": "app.py", "old_string": "x = 2", "new_string": "x = 3"})),
                   text_reply("done"))
        ran = lab.axon("run", "fix", "--mode", "accept-edits", "--sandbox", "off")
        assert ran.code == 0 and not crashed(ran), ran.stderr[-3000:]
        assert (lab.project / "tools/check.py").read_text() == rewrite, "the rewrite did not land"
        assert (lab.project / "ran-check").exists(), "control: the trusted checker never ran"
        assert not (lab.canary / "u_diag").exists(), ran.stderr[-1500:]
    finally:
        lab.close()
