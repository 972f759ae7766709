"""The ``--sandbox`` layer for commands the ``bash`` tool runs: bubblewrap (``bwrap``) namespaces.

Modes (config key ``sandbox``, flag ``--sandbox``):

- ``off``: the command runs as is.
- ``read-only``: the whole filesystem is mounted read-only; ``/tmp`` is a private, writable tmpfs
  (the host's ``/tmp`` is hidden, except — read-only — the project, ``$HOME``, the running Python
  and the installs behind PATH entries, if they live there);
  fresh ``/dev`` and ``/proc``; no network (own network namespace: only its own loopback); its own
  pid namespace, so when the command's shell ends or is killed, everything it started dies too.
- ``workspace-write``: as read-only, plus the project root writable — except ``<root>/.git`` and
  ``<root>/.axon``, which stay read-only (no rewriting history or the permission file).

The environment is the bash tool's own. No ``--new-session``: the bash tool starts ``bwrap`` in a
new session without a controlling terminal (so no ``TIOCSTI`` injection), and the sandboxed
processes stay in bwrap's process group, which the tool's timeout/cancel kill signals.

A sandbox that was asked for is never skipped: ``check_available`` raises ``ConfigError`` when
bwrap is missing or cannot create the namespaces here.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from axon_cli.errors import ConfigError

__all__ = ["MODES", "PROTECTED", "wrap_command", "check_available", "find_bwrap", "describe", "explain",
           "sandboxed_specs"]

MODES = ("off", "read-only", "workspace-write")
PROTECTED = (".git", ".axon")          # read-only inside a writable project
PROBE_TIMEOUT = 10.0
NAMESPACE_FLAGS = ("--unshare-net", "--unshare-pid", "--die-with-parent")

_DESCRIPTIONS = {
    "read-only": "Sandbox (read-only): commands cannot write files anywhere except a private /tmp, and "
                 "have no network access.",
    "workspace-write": "Sandbox (workspace-write): commands may write only inside the project (not .git "
                       "or .axon) and a private /tmp; the rest of the filesystem is read-only and there "
                       "is no network access.",
}
_FS_SIGNS = ("Read-only file system",)
_NET_SIGNS = ("Network is unreachable", "Could not resolve host", "Temporary failure in name resolution",
              "Name or service not known", "nodename nor servname")


def find_bwrap() -> str | None:
    """``bwrap`` on PATH (looked up each time, so a changed PATH is seen)."""
    return shutil.which("bwrap")


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def wrap_command(argv: Sequence[str], mode: str, project_root: Path | str, *, home: str | None = None,
                 cwd: Path | str | None = None, bwrap: str | None = None) -> list[str]:
    """``argv`` wrapped in a bwrap invocation for ``mode`` (unchanged for ``off``)."""
    if mode == "off":
        return list(argv)
    if mode not in MODES:
        raise ConfigError(f"unknown sandbox mode {mode!r} (expected one of: {', '.join(MODES)})")
    root = os.path.realpath(project_root)
    args = [bwrap or find_bwrap() or "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp"]
    for kept in _kept_under_tmp(home, root):
        args += ["--ro-bind", kept, kept]
    if mode == "workspace-write":
        args += ["--bind", root, root]
        for name in PROTECTED:
            inner = os.path.join(root, name)
            if os.path.lexists(inner) and os.path.exists(real := os.path.realpath(inner)):
                args += ["--ro-bind", real, real]
    else:
        args += ["--ro-bind", root, root]
    args += [*NAMESPACE_FLAGS, "--chdir", os.path.realpath(cwd) if cwd else root, "--", *argv]
    return args


def _kept_under_tmp(home: str | None, root: str) -> list[str]:
    """Host directories under /tmp that stay visible (read-only) beneath the private /tmp: $HOME,
    the running Python's prefix and the installs behind PATH entries (a venv in /tmp must keep
    working inside the sandbox)."""
    import sys

    candidates = [home or "", sys.prefix, sys.base_prefix]
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        real = os.path.realpath(entry) if entry else ""
        candidates.append(os.path.dirname(real) if os.path.basename(real) == "bin" else real)
    kept: list[str] = []
    for path in sorted({os.path.realpath(c) for c in candidates if c}, key=len):
        if (_within(path, "/tmp") and path != "/tmp" and not _within(path, root) and os.path.isdir(path)
                and not any(_within(path, k) for k in kept)):
            kept.append(path)
    return kept


@functools.lru_cache(maxsize=8)
def _probe(bwrap: str) -> str | None:
    """None when bwrap can build the sandbox's namespaces here; else the reason (first stderr line)."""
    cmd = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
           *NAMESPACE_FLAGS, "true"]
    try:
        done = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=PROBE_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(getattr(e, "strerror", None) or e)
    if done.returncode == 0:
        return None
    lines = done.stderr.decode(errors="replace").strip().splitlines()
    return lines[0] if lines else f"exit code {done.returncode}"


def check_available(mode: str) -> None:
    """Raise ConfigError (one line) when ``mode`` needs a sandbox that cannot be made here."""
    if mode == "off":
        return
    if mode not in MODES:
        raise ConfigError(f"unknown sandbox mode {mode!r} (expected one of: {', '.join(MODES)})")
    bwrap = find_bwrap()
    if bwrap is None:
        raise ConfigError(f"sandbox '{mode}' needs bubblewrap: apt install bubblewrap (or use --sandbox off)")
    reason = _probe(bwrap)
    if reason is not None:
        raise ConfigError(f"sandbox '{mode}' cannot start: bwrap failed here ({reason}); "
                          "allow unprivileged user namespaces or use --sandbox off")


def describe(description: str, mode: str) -> str:
    """A tool description with the sandbox's rules appended (unchanged for ``off``)."""
    extra = _DESCRIPTIONS.get(mode)
    return f"{description.rstrip()}\n{extra}" if extra else description


def sandboxed_specs(specs: Iterable[Any], mode: str) -> list[Any]:
    """The tool specs with the sandbox's rules added to the ``bash`` description (copies, in order)."""
    return [dataclasses.replace(s, description=describe(s.description, mode)) if s.name == "bash" and mode != "off"
            else s for s in specs]


def explain(output: str, mode: str) -> str | None:
    """A one-line note when ``output`` shows a failure the sandbox likely caused."""
    if mode == "off":
        return None
    if any(sign in output for sign in _FS_SIGNS):
        where = ("only the project (not .git or .axon) and /tmp are writable" if mode == "workspace-write"
                 else "only /tmp is writable")
        return f"(sandbox: {mode}: {where})"
    if any(sign in output for sign in _NET_SIGNS):
        return f"(sandbox: {mode}: no network access)"
    return None
