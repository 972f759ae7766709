"""Finding the project's other ``.git`` entries (``machinery/sandbox/repos.py``, ``machinery/sandbox/bounded_walk.py``) and the
mounts that keep them read-only (``machinery/sandbox/bwrap.py``); the read-only profile of read-only mode."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from axon_cli.machinery.sandbox import bounded_walk as scan
from axon_cli.machinery.sandbox import repos
from axon_cli.machinery.sandbox.bwrap import wrap_command
from tests.sandbox.test_sandbox import bash, dispatcher, needs_namespaces


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git" / "modules" / "lib").mkdir(parents=True)
    (root / "lib").mkdir()
    (root / "lib" / ".git").write_text("gitdir: ../.git/modules/lib\n")
    (root / "vendor" / "tool" / ".git").mkdir(parents=True)
    (root / "store" / "wt").mkdir(parents=True)
    (root / "wt").mkdir()
    (root / "wt" / ".git").write_text("gitdir: ../store/wt\n")
    (root / "node_modules" / "pkg" / ".git").mkdir(parents=True)      # skipped: a dependency folder
    return root


def test_nested_git_finds_gitfiles_their_targets_and_nested_repositories(tree: Path) -> None:
    found = repos.nested_git(str(tree))
    real = os.path.realpath(tree)
    assert sorted(found.protected) == sorted([f"{real}/lib/.git", f"{real}/.git/modules/lib",
                                              f"{real}/vendor/tool/.git", f"{real}/wt/.git", f"{real}/store/wt"])
    assert found.missing == []


def test_pins_are_every_directory_on_the_way_shallow_first(tree: Path) -> None:
    real = os.path.realpath(tree)
    pinned = list(repos.pins(real, [f"{real}/vendor/tool/.git", f"{real}/lib/.git", f"{real}/a/b/c/.git"]))
    assert pinned == [f"{real}/lib", f"{real}/vendor", f"{real}/vendor/tool", f"{real}/a", f"{real}/a/b",
                      f"{real}/a/b/c"]


def test_the_cached_walk_sees_a_repository_made_later(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    walk = scan.Scan(str(tmp_path), lambda e: e.name == ".git")
    assert walk.run() == []
    (tmp_path / "a" / "b" / ".git").mkdir()
    assert walk.run() == [str(tmp_path / "a" / "b" / ".git")]
    old = time.time() - 60                    # settled directories are not listed again
    for d in (tmp_path, tmp_path / "a", tmp_path / "a" / "b"):
        os.utime(d, (old, old))
    assert walk.run() == [str(tmp_path / "a" / "b" / ".git")]
    shutil.rmtree(tmp_path / "a" / "b" / ".git")
    assert walk.run() == []


def test_the_walk_stops_at_its_entry_cap(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"d{i}").mkdir()
    (tmp_path / "d7" / ".git").mkdir()
    walk = scan.Scan(str(tmp_path), lambda e: e.name == ".git", max_entries=10)
    walk.run()
    assert not walk.complete


def test_wrap_command_mounts_nested_git_read_only_after_its_pins(tree: Path) -> None:
    real = os.path.realpath(tree)
    nested = repos.nested_git(real).protected
    argv = wrap_command(["true"], "workspace-write", real, bwrap="bwrap", nested=nested)
    mounts = [(argv[i], argv[i + 1]) for i, w in enumerate(argv) if w in ("--bind", "--ro-bind") and i > 1]
    assert ("--ro-bind", f"{real}/lib/.git") in mounts and ("--ro-bind", f"{real}/store/wt") in mounts
    assert ("--ro-bind", f"{real}/.git/modules/lib") not in mounts           # inside .git: read-only already
    assert mounts.index(("--bind", f"{real}/vendor/tool")) < mounts.index(("--ro-bind", f"{real}/vendor/tool/.git"))
    assert all(kind == "--bind" for kind, path in mounts if path in (f"{real}/lib", f"{real}/vendor"))
    read_only = wrap_command(["true"], "read-only", real, bwrap="bwrap", nested=nested)
    assert f"{real}/lib/.git" not in read_only and "--bind" not in read_only


@needs_namespaces
def test_a_submodule_without_a_gitfile_cannot_get_one(tmp_path: Path) -> None:
    """A gitlink whose directory is empty (not checked out): a ``.git`` made there would make the
    user's ``git status`` enter it."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "proj"
    root.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=env)
    (root / "lib").mkdir()
    subprocess.run(["git", "update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},lib"], cwd=root,
                   check=True, env=env)
    (root / ".axon").mkdir()
    r = bash(dispatcher(root, "workspace-write"), "echo 'gitdir: ../evil' > lib/.git; mkdir -p lib/.git/x; echo end")
    assert "end" in r.content
    assert not (root / "lib" / ".git").exists()          # the mount point is gone, nothing was written


@needs_namespaces
@pytest.mark.parametrize("registered", ["lib", "deps/lib"])
def test_a_submodule_whose_directory_is_missing_cannot_be_made_a_repository(tmp_path: Path, registered: str) -> None:
    """A gitlink whose directory does not exist at all: a directory made there with its own ``.git``
    (and a ``core.fsmonitor``) would run when the user's ``git status`` enters it."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "proj"
    root.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=env)
    subprocess.run(["git", "update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},{registered}"], cwd=root,
                   check=True, env=env)
    (root / ".axon").mkdir()
    canary = tmp_path / "canary"
    plant = (f"mkdir -p {registered} && git init -q {registered} && "
             f"git -C {registered} config core.fsmonitor 'touch {canary}; false'; echo end")
    r = bash(dispatcher(root, "workspace-write"), plant)
    assert "end" in r.content
    assert not (root / registered / ".git").exists()
    subprocess.run(["git", "status"], cwd=root, env=env, capture_output=True)     # the user's own git
    assert not canary.exists()
    assert not (root / registered.split("/")[0]).exists()     # the held mount point is gone afterwards


@needs_namespaces
def test_read_only_mode_runs_commands_in_the_read_only_sandbox(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".axon").mkdir()
    (root / "a.txt").write_text("x\n")
    ctx_dispatcher = dispatcher(root, "workspace-write")
    ctx_dispatcher.ctx.settings.mode = "read-only"
    r = bash(ctx_dispatcher, "rm -f a.txt; echo made > b.txt; echo end")
    assert "end" in r.content
    assert (root / "a.txt").read_text() == "x\n" and not (root / "b.txt").exists()


def test_a_symlinked_nested_git_makes_its_directory_read_only(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "sub").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (root / "sub" / ".git").symlink_to(tmp_path / "elsewhere")
    assert repos.nested_git(str(root)).protected == [os.path.realpath(root / "sub")]
