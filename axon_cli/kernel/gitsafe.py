"""git as axon itself runs it on the user's project, outside the sandbox: hardened against a hostile
repository.

A repository's own config (``.git/config``, a submodule's, a nested repository's, or a file it
includes) can name commands git runs on its own: ``core.fsmonitor`` on every ``git status``, filter
drivers when a file is re-hashed, hooks, pagers, editors, ``core.sshCommand`` and credential helpers
when a partial clone fetches a missing object, ``status.submoduleSummary``. Options given with
``-c`` win over every config file, so each such key is overridden on the command line (filter
drivers by the names the config defines: ``filter_drivers``). Submodules are never entered, no
transport may run (``protocol.allow=never``, no lazy fetch), optional locks are off (nothing is
written), the system config is skipped, and a bare repository is used only when named. git's own
``safe.directory`` ownership check stays in force. The environment drops what would point git
elsewhere (``GIT_DIR``, ``GIT_WORK_TREE``, …) and sets harmless pager, editor and askpass commands.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

__all__ = ["HARDENING", "git_command", "git_env", "filter_drivers", "run_git", "ENV_DROP"]

HARDENING: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.pager", "cat"),
    ("core.editor", "true"),
    ("core.askPass", "false"),
    ("core.sshCommand", "false"),
    ("core.gitProxy", ""),
    ("core.alternateRefsCommand", "false"),
    ("core.untrackedCache", "false"),
    ("credential.helper", ""),
    ("diff.external", ""),
    ("status.submoduleSummary", "false"),
    ("submodule.recurse", "false"),
    ("diff.ignoreSubmodules", "all"),
    ("protocol.allow", "never"),
    ("safe.bareRepository", "explicit"),
    ("gpg.program", "false"),
    ("sequence.editor", "true"),
)
ENV_DROP = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
            "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES", "GIT_EXTERNAL_DIFF",
            "GIT_PAGER", "GIT_EDITOR", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_EXEC_PATH",
            "GIT_CONFIG", "GIT_CONFIG_SYSTEM", "GIT_TRACE", "GIT_TRACE2", "GIT_TRACE2_EVENT", "GIT_TRACE2_PERF",
            "GIT_PROXY_COMMAND", "GIT_ATTR_SOURCE")
SAFE_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0",
            "GIT_NO_LAZY_FETCH": "1", "GIT_PAGER": "cat", "PAGER": "cat", "GIT_EDITOR": "true",
            "GIT_ASKPASS": "false", "SSH_ASKPASS": "false", "GIT_SSH_COMMAND": "false",
            "GIT_PROTOCOL_FROM_USER": "0", "GIT_ALLOW_PROTOCOL": "", "LC_ALL": "C"}
DRIVER_KEYS = ("clean", "smudge", "process")
TIMEOUT = 2.0


def git_command(args: Sequence[str], *, git: str = "git", drivers: Iterable[str] = ()) -> list[str]:
    """``git ARGS`` with the hardening options in front (``drivers``: filter driver names to turn
    off, from ``filter_drivers``). Pure."""
    pairs = [*HARDENING]
    for name in sorted(set(drivers)):
        pairs += [(f"filter.{name}.{key}", "") for key in DRIVER_KEYS] + [(f"filter.{name}.required", "false")]
    options = [word for key, value in pairs for word in ("-c", f"{key}={value}")]
    return [git, "--no-pager", "--no-optional-locks", *options, *args]


def git_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a hardened git: ``environ`` (default ``os.environ``) without what would
    point git at another repository or command, with harmless pager/editor/askpass commands."""
    base = os.environ if environ is None else environ
    env = {k: v for k, v in base.items() if k not in ENV_DROP}
    env.update(SAFE_ENV)
    return env


def _run(argv: list[str], cwd: Path | str, timeout: float) -> str | None:
    try:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, env=git_env(), errors="surrogateescape")
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def filter_drivers(cwd: Path | str, *, git: str = "git", timeout: float = TIMEOUT) -> list[str]:
    """The filter driver names the config seen from ``cwd`` defines (every scope, includes
    followed); reading config runs nothing."""
    out = _run(git_command(["config", "-z", "--name-only", "--get-regexp", r"^filter\."], git=git), cwd, timeout)
    names = set()
    for key in (out or "").split("\0"):
        head, _, last = key.rpartition(".")
        if head.startswith("filter.") and last in (*DRIVER_KEYS, "required"):
            names.add(head[len("filter."):])
    return sorted(names)


def run_git(args: Sequence[str], cwd: Path | str, *, git: str = "git", timeout: float = TIMEOUT,
            drivers: Iterable[str] | None = None) -> str | None:
    """stdout of a hardened ``git ARGS`` run in ``cwd``, or None when it fails (not a repository, no
    git, timeout). ``drivers`` None: look them up first (a command that may hash files needs them)."""
    names = filter_drivers(cwd, git=git, timeout=timeout) if drivers is None else drivers
    return _run(git_command(args, git=git, drivers=names), cwd, timeout)
