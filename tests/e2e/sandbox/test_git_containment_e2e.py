"""A project's other git repositories cannot be turned against the user (security issue 21, class A
and C) — through the real ``axon run`` with bubblewrap and real git repositories.

Each attack plants a ``core.fsmonitor`` (a command git runs on ``git status``) that creates a canary
file outside the project, or a command that deletes a project file; the tests assert on those
files, never on axon's wording.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.fakeserver import text_reply, tool_reply
from tests.sandbox.test_sandbox import needs_namespaces

pytestmark = [needs_namespaces, pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")]

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1"}


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env={**GIT_ENV, "HOME": str(cwd.parent / "home"),
                                                        "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, check=True)
    return done.stdout


def _user_git_status(cwd: Path, home: Path) -> None:
    """What the user runs later, as themselves (their git, their config)."""
    subprocess.run(["git", "status"], cwd=cwd, env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
                   capture_output=True, timeout=30)


def _repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    _git(path, "init", "-q")
    (path / "f.txt").write_text("lib\n")
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "initial")
    return path


@pytest.fixture
def with_submodule(project: Path, tmp_path: Path) -> Path:
    """The project as a repository with a real submodule ``lib`` (its gitdir in .git/modules/lib)."""
    (project / ".git").rmdir()
    upstream = _repo(tmp_path / "upstream-lib")
    _git(project, "init", "-q")
    (project / "a.txt").write_text("a\n")
    _git(project, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), "lib")
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "with lib")
    assert (project / "lib" / ".git").is_file()
    return project


# The model's one command: a copy of the submodule's gitdir with an fsmonitor, and lib/.git (or a
# fresh lib/ after moving the real one away) pointed at it.
HIJACK = """
import os, shutil, subprocess
canary = {canary!r}
shutil.copytree('.git/modules/lib', 'evil')
with open('evil/config', 'a') as fh:
    fh.write('[core]\\n\\tfsmonitor = "touch ' + canary + '; false"\\n\\tworktree = ../lib\\n')
for how in ('overwrite', 'remove', 'rename'):
    try:
        if how == 'remove':
            os.remove('lib/.git')
        elif how == 'rename':
            os.rename('lib', 'lib-moved')
            os.mkdir('lib')
        with open('lib/.git', 'w') as fh:
            fh.write('gitdir: ../evil\\n')
        print(how, 'worked')
    except OSError as e:
        print(how, 'failed:', e)
"""


def test_submodule_gitfile_cannot_be_redirected(server, run_axon, with_submodule: Path, tmp_path: Path) -> None:
    project = with_submodule
    canary = tmp_path / "canary"
    gitfile = (project / "lib" / ".git").read_bytes()
    command = f"python3 - <<'EOF'\n{HIJACK.format(canary=str(canary))}\nEOF"
    server.add(tool_reply(("bash", {"command": command})), text_reply("done"))
    r = run_axon("run", "tidy up", "--yes")
    assert r.code == 0, r.stderr
    assert (project / "evil" / "config").is_file()                   # the command did run, sandboxed
    server.add(text_reply("hello"))
    r = run_axon("run", "say hello")                                 # start-up git status, no tool call
    assert r.code == 0, r.stderr
    _user_git_status(project, tmp_path / "home")
    assert (project / "lib" / ".git").read_bytes() == gitfile
    assert not (project / "lib-moved").exists()
    assert not canary.exists()


def test_embedded_repository_config_is_read_only_and_never_run_by_axon(server, run_axon, project: Path,
                                                                       tmp_path: Path) -> None:
    """An embedded repository shipped with an fsmonitor in its config: axon's start-up git status
    (at the top and inside it) never runs it, and a sandboxed command cannot plant one either."""
    (project / ".git").rmdir()
    _git(project, "init", "-q")
    tool = _repo(project / "vendor" / "tool")
    shipped = tmp_path / "canary-shipped"
    _git(tool, "config", "core.fsmonitor", f"touch {shipped}; false")
    _git(project, "add", "-A")                       # vendor/tool becomes a gitlink
    _git(project, "commit", "-q", "-m", "vendored")
    planted = tmp_path / "canary-planted"
    line = f'[core]\\n\\tfsmonitor = \\"touch {planted}; false\\"\\n'
    command = f"python3 -c \"open('vendor/tool/.git/config', 'a').write('{line}')\"; echo end"
    server.add(tool_reply(("bash", {"command": command})), text_reply("done"))
    r = run_axon("run", "look around", "--yes")
    assert r.code == 0, r.stderr
    assert str(planted) not in (tool / ".git" / "config").read_text()
    server.add(text_reply("hello"))
    r = run_axon("run", "say hello", cwd=tool)       # started inside the embedded repository
    assert r.code == 0, r.stderr
    assert not shipped.exists() and not planted.exists()


READ_ONLY_ATTACKS = [
    "git -C vendor/tool status",
    "git --git-dir=vendor/tool/.git --work-tree=vendor/tool status",
    "git grep --open-files-in-pager='rm -f a.txt; true' x",
    "BASH_ENV=scripts/env.sh bash -c true",
]


@pytest.mark.parametrize("command", READ_ONLY_ATTACKS)
def test_read_only_mode_cannot_delete_a_file(server, run_axon, project: Path, command: str) -> None:
    (project / ".git").rmdir()
    _git(project, "init", "-q")
    (project / "a.txt").write_text("x\n")
    (project / "scripts").mkdir()
    (project / "scripts" / "env.sh").write_text("rm -f a.txt\n")
    tool = _repo(project / "vendor" / "tool")
    _git(tool, "config", "core.fsmonitor", f"rm -f {project / 'a.txt'}; false")
    _git(project, "add", "a.txt", "scripts")
    _git(project, "commit", "-q", "-m", "initial")
    server.add(tool_reply(("bash", {"command": command})), text_reply("done"))
    r = run_axon("run", "check the status", "--mode", "read-only")
    assert r.code == 0, r.stderr
    assert (project / "a.txt").read_text() == "x\n"
