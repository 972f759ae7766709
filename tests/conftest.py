"""Shared fixtures: the scripted server, an isolated project directory, and running the real axon."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakeserver import ScriptedServer

AXON_SCRIPT = Path(sys.executable).parent / "axon"
TEST_KEY = "sk-test-0123456789abcdefghijklmnop"
E2E_DIR = Path(__file__).resolve().parent / "e2e"
E2E_FIXTURES = frozenset({"run_axon", "axon_env", "chat"})   # the real axon as a subprocess or in a pty


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C in these tests is a user's at a terminal, where SIGINT is never ignored. A harness started
    in the background of a script (``cmd &`` without job control) ignores it, and every axon a test
    starts would inherit that (POSIX keeps an ignored signal ignored across exec, and axon rightly
    leaves it so): its Ctrl-C tests would wait for an axon that never hears them. Each pytest process
    (xdist workers too) takes SIGINT back, so what it starts gets the default disposition."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark end-to-end tests ``e2e``: everything under ``tests/e2e/``, and any other test that runs the
    real axon through a fixture. ``pytest -m "not e2e"`` is the fast inner loop; nothing is deselected
    by default."""
    for item in items:
        if item.path.is_relative_to(E2E_DIR) or E2E_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.e2e)


def axon_command() -> list[str]:
    return [str(AXON_SCRIPT)] if AXON_SCRIPT.exists() else [sys.executable, "-m", "axon_cli"]


@pytest.fixture(autouse=True)
def _own_trust_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests that load settings in-process read and write folder trust in their own state dir, never
    the real user's (``axon_env`` leaves it out: a real axon uses the default under the fake HOME)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as srv:
        yield srv


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project directory (with .git so it is the project root), and an isolated home."""
    return make_project(tmp_path)


def make_project(root: Path) -> Path:
    """``root/proj`` (with .git, so it is the project root) and an isolated ``root/home``."""
    project = root / "proj"
    project.mkdir()
    (project / ".git").mkdir()
    (root / "home").mkdir()
    return project


def make_axon_env(project: Path, url: str) -> dict[str, str]:
    """The environment of a real axon run in ``project`` against the endpoint at ``url``."""
    home = project.parent / "home"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "AXON_", "OTEL_")) and k not in ("NO_COLOR", "XDG_STATE_HOME")}
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "OPENAI_BASE_URL": url,
                "OPENAI_API_KEY": TEST_KEY, "AXON_MODEL": "test-model", "COLUMNS": "100",
                "PYTHONUNBUFFERED": "1"})
    return env


@pytest.fixture
def axon_env(project: Path, server: ScriptedServer) -> dict[str, str]:
    return make_axon_env(project, server.url)


@dataclass
class Ran:
    code: int
    stdout: str
    stderr: str


@pytest.fixture
def run_axon(project: Path, axon_env: dict[str, str]):  # type: ignore[no-untyped-def]
    """Run the real ``axon`` as a subprocess in the project directory."""

    def _run(*args: str, input: str | None = None, timeout: float = 60, cwd: Path | None = None,
             env: dict[str, str] | None = None) -> Ran:
        return run_axon_in(cwd or project, {**axon_env, **(env or {})}, *args, input=input, timeout=timeout)

    return _run


def run_axon_in(cwd: Path, env: dict[str, str], *args: str, input: str | None = None, timeout: float = 60) -> Ran:
    """``run_axon`` without the fixture: for a module-scoped run shared by several tests."""
    proc = subprocess.run([*axon_command(), *args], cwd=cwd, env=env, input=input, capture_output=True, text=True,
                          timeout=timeout, stdin=None if input is not None else subprocess.DEVNULL)
    return Ran(proc.returncode, proc.stdout, proc.stderr)
