"""Shared fixtures: the scripted server, an isolated project directory, and running the real axon."""

from __future__ import annotations

import os
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
    root = tmp_path / "proj"
    root.mkdir()
    (root / ".git").mkdir()
    (tmp_path / "home").mkdir()
    return root


@pytest.fixture
def axon_env(project: Path, server: ScriptedServer) -> dict[str, str]:
    home = project.parent / "home"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "AXON_", "OTEL_")) and k not in ("NO_COLOR", "XDG_STATE_HOME")}
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "OPENAI_BASE_URL": server.url,
                "OPENAI_API_KEY": TEST_KEY, "AXON_MODEL": "test-model", "COLUMNS": "100",
                "PYTHONUNBUFFERED": "1"})
    return env


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
        proc = subprocess.run([*axon_command(), *args], cwd=cwd or project, env={**axon_env, **(env or {})},
                              input=input, capture_output=True, text=True, timeout=timeout,
                              stdin=None if input is not None else subprocess.DEVNULL)
        return Ran(proc.returncode, proc.stdout, proc.stderr)

    return _run
