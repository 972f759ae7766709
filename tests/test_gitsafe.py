"""The hardened git axon runs on the user's project (``axon_cli/kernel/gitsafe.py``): the command line it
builds, and — with real git on a repository whose config names commands — that none of them runs."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from axon_cli.kernel import gitsafe
from axon_cli.session.conversation.context import git_summary

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"}


def _pairs(argv: list[str]) -> dict[str, str]:
    return dict(argv[i + 1].split("=", 1) for i, word in enumerate(argv) if word == "-c")


def test_git_command_puts_every_override_before_the_subcommand() -> None:
    argv = gitsafe.git_command(["status", "--porcelain"], git="/usr/bin/git", drivers=["lfs", "evil"])
    assert argv[:3] == ["/usr/bin/git", "--no-pager", "--no-optional-locks"]
    assert argv[-2:] == ["status", "--porcelain"]
    pairs = _pairs(argv)
    for key, value in {"core.fsmonitor": "false", "core.hooksPath": "/dev/null", "core.pager": "cat",
                       "core.sshCommand": "false", "diff.external": "", "status.submoduleSummary": "false",
                       "protocol.allow": "never", "filter.evil.clean": "", "filter.evil.process": "",
                       "filter.evil.required": "false", "filter.lfs.smudge": ""}.items():
        assert pairs[key] == value, key
    assert "-c" not in argv[argv.index("status"):]


def test_git_env_drops_redirections_and_sets_harmless_commands() -> None:
    env = gitsafe.git_env({"GIT_DIR": "/elsewhere", "GIT_WORK_TREE": "/x", "GIT_EXTERNAL_DIFF": "evil",
                           "GIT_SSH_COMMAND": "evil", "HOME": "/home/u", "PATH": "/bin"})
    assert "GIT_DIR" not in env and "GIT_WORK_TREE" not in env and "GIT_EXTERNAL_DIFF" not in env
    assert env["GIT_SSH_COMMAND"] == "false" and env["GIT_PAGER"] == "cat" and env["GIT_OPTIONAL_LOCKS"] == "0"
    assert env["GIT_CONFIG_NOSYSTEM"] == "1" and env["HOME"] == "/home/u" and env["PATH"] == "/bin"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env={**GIT_ENV, "HOME": str(cwd)}, check=True, capture_output=True)


@needs_git
def test_a_hostile_repository_config_runs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """fsmonitor, a filter driver (named in an included file) and a submodule summary: each would
    create its canary on a plain ``git status``."""
    monkeypatch.setenv("HOME", str(tmp_path))
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("one\n")
    _git(repo, "add", "a.txt")
    _git(repo, "commit", "-q", "-m", "i")
    canaries = {name: tmp_path / f"canary-{name}" for name in ("fsmonitor", "filter")}
    (repo / ".gitattributes").write_text("* filter=evil\n")
    (repo / "extra.cfg").write_text(f'[filter "evil"]\n\tclean = "touch {canaries["filter"]}; cat"\n')
    _git(repo, "config", "include.path", "../extra.cfg")
    _git(repo, "config", "core.fsmonitor", f"touch {canaries['fsmonitor']}; false")
    _git(repo, "config", "status.submoduleSummary", "true")
    stat = (repo / "a.txt").stat()
    os.utime(repo / "a.txt", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**10))   # git must hash it again
    assert gitsafe.filter_drivers(repo) == ["evil"]
    assert git_summary(repo) == " Git branch main; 2 changed files: ?? .gitattributes, ?? extra.cfg."
    assert [name for name, path in canaries.items() if path.exists()] == []
    subprocess.run(["git", "status"], cwd=repo, env={**GIT_ENV, "HOME": str(tmp_path)}, capture_output=True)
    assert all(path.exists() for path in canaries.values())    # the same repository, plain git: both ran


@needs_git
def test_not_a_repository_gives_none(tmp_path: Path) -> None:
    assert gitsafe.run_git(["status"], tmp_path / "nowhere") is None
    (tmp_path / "plain").mkdir()
    assert gitsafe.run_git(["status"], tmp_path / "plain") is None
