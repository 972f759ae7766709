"""The bubblewrap command line for one sandboxed command, and the mount points it needs meanwhile.

- ``read-only``: the whole filesystem is mounted read-only; ``/tmp`` is a private, writable tmpfs
  (the host's ``/tmp`` is hidden, except — read-only — the project, ``$HOME``, the running Python
  and the installs behind PATH entries, if they live there); fresh ``/dev`` and ``/proc``; no
  network (the session's shared namespace, ``netns``: only loopback); its own pid namespace, so when the
  command's shell ends or is killed, everything it started dies too.
- ``workspace-write``: as read-only, plus the project root writable — except ``<root>/.git`` and
  ``<root>/.axon``, which stay read-only whether or not they exist yet (see ``mountpoints``), and
  every other ``.git`` the project holds (submodules, nested and embedded repositories, the
  directories gitfiles point to; see ``repos``), with the directories leading to them pinned; and
  the settings that name commands and every file a configured command runs (``outside.held_read_only``).

In both, the hidden set (``hidden.py``) reads as empty, and so do the unix sockets of user services
(``sockets``: Docker, agents, the session bus), except those ``sandbox_allow_sockets`` names. The environment is the bash tool's own. No
``--new-session``: the bash tool starts ``bwrap`` in a new session without a controlling terminal
(so no ``TIOCSTI`` injection), and the sandboxed processes stay in bwrap's process group, which
the tool's timeout/cancel kill signals. bwrap's parent is the command's keeper (``lifetime.py``), a
single-threaded process that lives exactly as long as the command, so ``--die-with-parent`` follows
it; a SIGKILL of axon before bwrap has armed that is caught by the keeper, which ends bwrap and,
with it, the pid namespace.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from axon_cli.kernel.errors import ConfigError
from axon_cli.kernel.state import atomic_write, ensure_state_dir, user_state_dir
from axon_cli.machinery.sandbox.hidden import Hidden, hidden_set
from axon_cli.machinery.sandbox.probe import CHOICES, MODES, NAMESPACE_FLAGS, find_bwrap
from axon_cli.machinery.sandbox.repos import gitfile_target, nested_git, pins
from axon_cli.machinery.sandbox.sockets import allowed_sockets, service_sockets

__all__ = ["PROTECTED", "wrap_command", "confine", "empty_file"]

PROTECTED = (".git", ".axon")          # read-only inside a writable project


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def empty_file() -> str:
    """An empty read-only regular file to mount over hidden files (``/dev/null`` if it cannot be made:
    a device there confuses tools such as git)."""
    path = user_state_dir() / "empty"
    try:
        if not path.is_file() or path.stat().st_size:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            atomic_write(path, b"", mode=0o444)
        return str(path)
    except OSError:
        return "/dev/null"


def protected_paths(root: str) -> list[str]:
    """What stays read-only in a writable project: ``.git`` (and a worktree's gitdir) and ``.axon``."""
    out: list[str] = []
    for name in PROTECTED:
        inner = os.path.join(root, name)
        real = os.path.realpath(inner) if os.path.lexists(inner) else inner
        out.append(real)
        target = gitfile_target(real) if os.path.isfile(real) else None
        if target and _within(target, root) and target != root and os.path.isdir(target):
            out.append(target)
    return out


def _outermost(paths: Sequence[str]) -> list[str]:
    """``paths`` without duplicates and without those inside another one, shallow first."""
    kept: list[str] = []
    for path in sorted(set(paths), key=lambda p: (p.count("/"), p)):
        if not any(_within(path, k) for k in kept):
            kept.append(path)
    return kept


def _project_mounts(root: str, nested: Sequence[str]) -> list[str]:
    """The writable project, its ``.git``/``.axon`` and every nested ``.git`` read-only, the
    directories leading to them pinned (bound onto themselves) so they cannot be renamed away."""
    from axon_cli.machinery.sandbox.outside import held_read_only

    held = held_read_only(root)
    protected = _outermost([p for p in [*protected_paths(root), *nested, *held] if os.path.exists(p)])
    args = ["--bind", root, root]
    for pin in pins(root, protected):
        args += ["--bind", pin, pin]
    for path in protected:
        args += ["--ro-bind", path, path]
    return args


def _hidden_mounts(hidden: Hidden | None, empty: str, allowed: Sequence[str]) -> list[str]:
    """Hidden files read as ``empty``, hidden dirs as an empty read-only tmpfs; an allowed socket
    inside a hidden dir is bound back before the tmpfs turns read-only."""
    args: list[str] = []
    for path in hidden.files if hidden else []:
        args += ["--ro-bind", empty, path]
    for path in hidden.dirs if hidden else []:
        args += ["--tmpfs", path]
        for sock in allowed:
            if _within(sock, path) and os.path.exists(sock):
                args += ["--ro-bind", sock, sock]
        args += ["--remount-ro", path]
    return args


def wrap_command(argv: Sequence[str], mode: str, project_root: Path | str, *, home: str | None = None,
                 cwd: Path | str | None = None, bwrap: str | None = None, hidden: Hidden | None = None,
                 empty: str = "/dev/null", nested: Sequence[str] = (), allowed: Sequence[str] = (),
                 netns: Sequence[str] = ()) -> list[str]:
    """``argv`` wrapped in a bwrap invocation for ``mode`` (unchanged for ``off``). Pure: the
    protected paths must exist (``confine`` makes them). ``nested``: the project's other ``.git``
    paths to keep read-only; ``allowed``: sockets the hidden set leaves out (``sockets``); ``netns``:
    the command that joins the session's shared network namespace (``netns.prefix``), else the
    command gets its own."""
    if mode == "off":
        return list(argv)
    if mode not in MODES:
        raise ConfigError(f"unknown sandbox mode {mode!r} (expected one of: {', '.join(CHOICES)})")
    root = os.path.realpath(project_root)
    args = [*netns, bwrap or find_bwrap() or "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp"]
    for kept in _kept_under_tmp(home, root):
        args += ["--ro-bind", kept, kept]
    if mode == "workspace-write":
        args += _project_mounts(root, nested)
    else:
        args += ["--ro-bind", root, root]
    args += _hidden_mounts(hidden, empty, allowed)
    flags = [f for f in NAMESPACE_FLAGS if not (netns and f == "--unshare-net")]   # joined, not unshared
    args += [*flags, "--chdir", os.path.realpath(cwd) if cwd else root, "--", *argv]
    return args


def _kept_under_tmp(home: str | None, root: str) -> list[str]:
    """Host directories under /tmp that stay visible (read-only) beneath the private /tmp: $HOME,
    the running Python's prefix and the installs behind PATH entries (a venv in /tmp must keep
    working inside the sandbox)."""
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


@contextlib.contextmanager
def confine(argv: Sequence[str], mode: str, project_root: Path | str, *, home: str | None = None,
            hide: Sequence[str] = (), allow_sockets: Sequence[str] = ()) -> Iterator[list[str]]:
    """The bwrap argv for ``mode`` with the hidden set (user-service sockets included, but those
    ``allow_sockets`` names); while inside, the mount points of missing protected names exist
    (removed on exit). ``off`` yields ``argv`` unchanged."""
    if mode == "off":
        yield list(argv)
        return
    from axon_cli.machinery.sandbox import mountpoints, netns

    root = os.path.realpath(project_root)
    home = home or str(Path.home())
    allowed = allowed_sockets(allow_sockets, home)
    hidden = with_sockets(hidden_set(root, home, hide), service_sockets(home, root), root, allowed)
    missing: list[str] = []
    nested: list[str] = []
    if mode == "workspace-write":
        with contextlib.suppress(OSError):
            ensure_state_dir(Path(root) / ".axon")       # axon keeps its state there anyway
        found = nested_git(root)
        missing = [p for p in protected_paths(root) if not os.path.lexists(p)] + found.missing
        nested = found.protected + found.missing
    bwrap = find_bwrap() or "bwrap"
    with mountpoints.held(missing):
        yield wrap_command(argv, mode, root, home=home, bwrap=bwrap, hidden=hidden, empty=empty_file(),
                           nested=nested, allowed=allowed, netns=netns.prefix(bwrap) or ())


def with_sockets(hidden: Hidden, sockets: Sequence[str], root: str, allowed: Sequence[str]) -> Hidden:
    """``hidden`` plus the existing ``sockets`` (real paths; not the project, not ``allowed``, not
    inside a directory hidden already)."""
    files = [f for f in hidden.files if f not in allowed]
    dirs = [d for d in hidden.dirs if d not in allowed]
    for path in sockets:
        with contextlib.suppress(OSError, ValueError):
            real = os.path.realpath(path)
            if not os.path.exists(real) or _within(root, real) or _within(real, root) or real in allowed:
                continue
            (dirs if os.path.isdir(real) else files).append(real)
    dirs = _outermost(dirs)
    files = sorted({f for f in files if not any(_within(f, d) for d in dirs)})
    return Hidden(dirs=dirs, files=files)
