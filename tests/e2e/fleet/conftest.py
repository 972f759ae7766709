"""The fleet tests' shared pieces: a task container's environment, bash, and the Harbor adapter's
install step run once a session (a real pip install of this checkout into a new venv)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from axon_cli.app.fleet.harbor_commands import install_command

REPO = Path(__file__).resolve().parents[3]


def base_env(home: Path) -> dict[str, str]:
    """The environment a task container gives the agent user: no endpoint, its own HOME."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "AXON_", "VIRTUAL_ENV", "PYTHON")) and k != "XDG_STATE_HOME"}
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                "XDG_STATE_HOME": str(home / ".local/state")})
    return env


def bash(command: str, cwd: Path, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="session")
def installed_venv(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The install step, for real: a new venv with this checkout (AXON_INSTALL_SPEC) in it."""
    root = tmp_path_factory.mktemp("harbor-install")
    (root / "home").mkdir()
    venv = str(root / "axon-venv")
    # PIP_NO_COMPILE: pip byte-compiles every installed module otherwise (half the install's CPU); what
    # is installed and the command that installs it are the same
    ran = bash(install_command(venv), root, {**base_env(root / "home"), "AXON_INSTALL_SPEC": str(REPO),
                                             "PIP_NO_COMPILE": "1"}, timeout=300)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert ran.stdout.startswith("axon "), ran.stdout
    return venv


