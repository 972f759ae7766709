"""Issue 21 class C, end to end: commands that were classified read-only but ran a program the analysis
could not see (``BASH_ENV``, ``git grep -O``, an embedded repository's ``core.fsmonitor`` reached
with ``git -C`` / ``--git-dir`` / ``cd``). Each attack is planted for real; a control run proves it
deletes the canary, and through axon's bash tool (read-only and default mode, the real policy and
dispatcher) the canary survives."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from axon_cli.machinery.sandbox import resolve
from axon_cli.policy.project_policy import load_policy
from axon_cli.settings.config import load_settings
from axon_cli.tools.dispatch import Dispatcher, ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]


def _git(cwd: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("BASH_ENV", raising=False)
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("x\n")
    (root / "scripts").mkdir()
    (root / "scripts" / "env.sh").write_text("rm -f a.txt\n")
    _git(root, "init", "-q", ".")
    _git(root, "add", "a.txt")
    _git(root, "commit", "-qm", "init")
    tool = root / "vendor" / "tool"         # a repository shipped inside the project, with its own config
    tool.mkdir(parents=True)
    _git(tool, "init", "-q", ".")
    (tool / "f").write_text("y\n")
    _git(tool, "add", "f")
    _git(tool, "commit", "-qm", "init")
    _git(tool, "config", "core.fsmonitor", f"rm -f {root / 'a.txt'}; false")
    return root


ATTACKS = [
    "BASH_ENV=scripts/env.sh bash -c true", "env BASH_ENV=scripts/env.sh bash -c true",
    "export BASH_ENV=scripts/env.sh; bash -c true", "git grep --open-files-in-pager='rm -f a.txt; true' x",
    "git -C vendor/tool status", "git --git-dir=vendor/tool/.git status", "cd vendor/tool && git status",
]


def _dispatcher(root: Path, mode: str) -> Dispatcher:
    loaded = load_settings(root, trust_run=True)
    policy = load_policy(loaded, root)
    policy.set_mode(mode)
    registry = ToolRegistry.with_builtins(resolve(loaded.settings.sandbox))
    ctx = ToolContext(project_root=root, state_dir=root / ".axon", session_id="rt", settings=loaded.settings,
                      registry=registry)
    return Dispatcher(registry, ctx, policy=policy)


@pytest.mark.parametrize("command", ATTACKS)
def test_the_planted_attack_is_real(proj: Path, command: str) -> None:
    subprocess.run(["bash", "-c", command], cwd=proj, capture_output=True, timeout=60)
    assert not (proj / "a.txt").exists()


@pytest.mark.parametrize("mode", ["read-only", "default"])
@pytest.mark.parametrize("command", ATTACKS)
def test_the_attack_is_not_read_only_and_the_file_survives(proj: Path, command: str, mode: str) -> None:
    out = _dispatcher(proj, mode).dispatch(
        ToolCall(id="c1", name="bash", arguments=json.dumps({"command": command}))).content
    assert out.startswith("Permission denied"), out
    assert (proj / "a.txt").read_text() == "x\n"
