"""Start-up fast paths: ``--version`` before typer, ``--help`` from the help cache — always exactly
what typer prints (for every command, piped and in a terminal), and a change to the CLI's code is
a miss that renders again; ``axon run`` imports the SDK on a background thread."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
import typer

from axon_cli.app.entry import cli
from tests.conftest import axon_command

TYPER_DIRECT = ("import sys; sys.argv = ['axon', *sys.argv[1:]]\n"
                "from axon_cli.app.entry.cli import main\nmain()\n")


def command_paths() -> list[list[str]]:
    """Every command and group of the CLI, as the words that reach it (the root is [])."""
    paths: list[list[str]] = []

    def walk(command: object, path: list[str]) -> None:
        paths.append(path)
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            walk(sub, [*path, name])

    walk(typer.main.get_command(cli.app), [])
    return paths


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if not k.endswith("_COMPLETE")},
            "XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path), "COLUMNS": "100"}


def axon(env: dict[str, str], *args: str, importtime: bool = False) -> subprocess.CompletedProcess[str]:
    cmd = axon_command()
    if importtime:
        cmd = [sys.executable, "-X", "importtime", *cmd[-1:]] if cmd[0] != sys.executable else \
            [sys.executable, "-X", "importtime", "-m", "axon_cli"]
    return subprocess.run([*cmd, *args], env=env, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def typer_output(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", TYPER_DIRECT, *args], env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


def imported_typer(stderr: str) -> bool:
    return any(line.split("|")[-1].strip() == "typer" for line in stderr.splitlines())


def test_version_is_typers_without_typer(env: dict[str, str]) -> None:
    fast = axon(env, "--version", importtime=True)
    assert fast.returncode == 0 and fast.stdout == typer_output(env, "--version").stdout == "axon 0.1.0\n"
    assert not imported_typer(fast.stderr)


@pytest.mark.parametrize("path", command_paths(), ids=lambda p: " ".join(p) or "axon")
def test_help_from_the_cache_equals_typers(env: dict[str, str], path: list[str]) -> None:
    expected = typer_output(env, *path, "--help")
    assert expected.returncode == 0 and expected.stdout.strip(), expected.stderr
    first = axon(env, *path, "--help", importtime=True)            # a miss: typer renders, a copy is kept
    second = axon(env, *path, "--help", importtime=True)           # a hit: no typer at all
    assert first.stdout == second.stdout == expected.stdout
    assert imported_typer(first.stderr) and not imported_typer(second.stderr)
    assert first.returncode == second.returncode == 0


def test_bare_axon_prints_the_same_help(env: dict[str, str]) -> None:
    expected = typer_output(env)
    assert axon(env).stdout == axon(env).stdout == expected.stdout


def test_terminal_size_and_environment_are_part_of_the_key(env: dict[str, str]) -> None:
    axon(env, "run", "--help")
    narrow = {**env, "COLUMNS": "60"}
    assert axon(narrow, "run", "--help").stdout == typer_output(narrow, "run", "--help").stdout
    plain = {**env, "NO_COLOR": "1", "TERM": "dumb"}
    assert axon(plain, "run", "--help").stdout == typer_output(plain, "run", "--help").stdout


def test_in_a_terminal_the_cached_help_is_typers(env: dict[str, str]) -> None:
    env = {k: v for k, v in env.items() if k != "COLUMNS"} | {"TERM": "xterm-256color"}

    def screen(argv: list[str]) -> str:
        child = pexpect.spawn(argv[0], argv[1:], env=env, dimensions=(30, 90), encoding="utf-8")
        child.expect(pexpect.EOF, timeout=60)
        child.close()
        assert child.exitstatus == 0
        return str(child.before)

    direct = screen([sys.executable, "-c", TYPER_DIRECT, "chat", "--help"])
    cmd = axon_command()
    assert screen([*cmd, "chat", "--help"]) == screen([*cmd, "chat", "--help"]) == direct
    assert "\x1b[" in direct                                        # rich's colours, as typer prints them


def installed_cli_source(env: dict[str, str], cwd: Path) -> Path:
    """The ``cli.py`` the ``axon`` binary loads: under a non-editable install (CI) it is the copy in
    site-packages, not the checkout's that this test process imported."""
    found = subprocess.run([sys.executable, "-c", "import axon_cli.app.entry.cli as c; print(c.__file__)"], env=env,
                           cwd=cwd, capture_output=True, text=True, timeout=60, check=True)
    return Path(found.stdout.strip())


def test_a_change_to_the_cli_code_is_a_miss(env: dict[str, str], tmp_path: Path) -> None:
    # axon loaded from a copy of the installed package (PYTHONPATH comes before site-packages): the
    # change below is the copy's alone, never seen by the tests of the help cache running beside this
    cli = installed_cli_source(env, tmp_path)
    installed = cli.parents[2]                # axon_cli/app/entry/cli.py: the package's folder
    assert installed.name == "axon_cli", installed
    shutil.copytree(installed, tmp_path / "pkg" / "axon_cli", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**env, "PYTHONPATH": str(tmp_path / "pkg")}
    source = installed_cli_source(env, tmp_path)
    assert source == tmp_path / "pkg" / cli.relative_to(installed.parent), source
    axon(env, "--help", importtime=True)
    assert not imported_typer(axon(env, "--help", importtime=True).stderr)
    before = source.stat()
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    again = axon(env, "--help", importtime=True)
    assert imported_typer(again.stderr) and again.stdout == typer_output(env, "--help").stdout


def test_an_unwritable_cache_still_prints_help(env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("not a directory")
    r = axon(env, "--help")
    assert r.returncode == 0 and r.stdout == typer_output(env, "--help").stdout and not r.stderr


def test_usage_errors_are_not_cached(env: dict[str, str]) -> None:
    r = axon(env, "nosuchcommand", "--help")
    assert r.returncode == 2 and "No such command" in r.stderr
    assert axon(env, "nosuchcommand", "--help").returncode == 2


def test_run_starts_the_sdk_import_on_a_thread() -> None:
    from axon_cli.app import preload

    assert preload.start(["run", "--help"]) is None and preload.start(["tools"]) is None
    thread = preload.start(["run", "hi"])
    assert thread is not None
    thread.join(60)
    assert "openai" in sys.modules
