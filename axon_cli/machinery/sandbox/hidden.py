"""What a sandboxed command cannot see: credential stores, axon's own user files, host services, the
project's sensitive files and whatever ``sandbox_hide`` adds.

A hidden directory becomes an empty read-only tmpfs; a hidden file is replaced by an empty
read-only file. Only paths that exist are hidden (a missing one cannot be read either, and the
sandbox cannot create it: everything outside the project is read-only). The project's sensitive
files are found at any depth with ripgrep (``--files --hidden --no-ignore`` and the permission
layer's own globs), skipping dependency folders, bounded in count and time.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from axon_cli.policy.sensitive import (
    HOME_FILES,
    NOT_SENSITIVE,
    SEARCH_EXCLUDES,
    SEARCH_GLOBS,
    SENSITIVE_DIRS,
    SENSITIVE_PATHS,
    is_sensitive_name,
    sensitive_path_part,
)

__all__ = ["Hidden", "hidden_set", "HOME_STORES", "HOST_SERVICES", "MAX_PROJECT_FILES"]

# The permission layer's list (policy/sensitive.py), as paths under the home directory.
HOME_STORES = (*sorted(SENSITIVE_DIRS), *SENSITIVE_PATHS, *HOME_FILES)
# Sockets of services that would run something outside the sandbox on a command's behalf.
HOST_SERVICES = ("/var/run/docker.sock", "/run/docker.sock", "/run/podman", "/run/containerd",
                 "/run/dbus/system_bus_socket")
SKIPPED_DIRS = ("node_modules", ".venv", "venv", ".tox", ".nox", "__pycache__", ".mypy_cache",
                ".pytest_cache", "site-packages")
MAX_PROJECT_FILES = 500
_PATH_ENDS = frozenset(p.rsplit("/", 1)[-1] for p in SENSITIVE_PATHS)
SMALL_PROJECT_ENTRIES = 4000   # a project with fewer directory entries is walked in Python (no rg process)
SEARCH_TIMEOUT = 5.0
MAX_GLOB_MATCHES = 200


@dataclass
class Hidden:
    dirs: list[str] = field(default_factory=list)     # real paths, shown as an empty tmpfs
    files: list[str] = field(default_factory=list)    # real paths, shown as an empty file


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _user_dirs() -> list[str]:
    from axon_cli.kernel.state import user_state_dir
    from axon_cli.settings.config import user_config_dir

    runtime = os.environ.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
    return [str(user_config_dir()), str(user_state_dir()), runtime]


def _rg_globs(extra: Sequence[str]) -> list[str]:
    names = [*SEARCH_GLOBS, *extra]
    args = [a for g in names for a in ("--glob", g)]
    args += [a for g in SEARCH_EXCLUDES for a in ("--glob", f"!{g}")]
    return args + [a for d in (".git", *SKIPPED_DIRS) for a in ("--glob", f"!{d}/")]


def project_files(root: str, extra_globs: Sequence[str] = ()) -> list[str]:
    """Sensitive files anywhere in the project (real paths), at most ``MAX_PROJECT_FILES``. A small
    project is walked here (no process to start: this runs before every command); a large one, or
    globs with a path in them, is searched with ripgrep."""
    from axon_cli.kernel.ripgrep_path import find_rg

    if not any("/" in g for g in extra_globs):
        small = _walk_project(root, extra_globs, max_entries=SMALL_PROJECT_ENTRIES)
        if small is not None:
            return small
    rg = find_rg()
    if rg is None:
        return _walk_project(root, extra_globs) or []
    cmd = [rg, "--files", "--hidden", "--no-ignore", "--no-config", "--no-messages", *_rg_globs(extra_globs)]
    try:
        proc = subprocess.Popen(cmd, cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
    except OSError:
        return _walk_project(root, extra_globs) or []
    try:
        out, _ = proc.communicate(timeout=SEARCH_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    lines = out.decode("utf-8", "surrogateescape").splitlines()
    return [os.path.join(root, line) for line in itertools.islice(lines, MAX_PROJECT_FILES)]


def _walk_project(root: str, extra_globs: Sequence[str], max_entries: int | None = None) -> list[str] | None:
    """The same search without ripgrep (the permission layer's test of each name, and of the
    directories it lies in); None when the walk saw more than ``max_entries`` directory entries
    (then ripgrep is faster)."""
    import fnmatch
    import re

    extra = re.compile("|".join(fnmatch.translate(p) for p in extra_globs)) if extra_globs else None
    skipped = {".git", *SKIPPED_DIRS}
    found: list[str] = []
    seen = 0
    stack: list[tuple[str, bool]] = [(root, False)]     # a directory, and whether it is sensitive
    while stack:
        top, secret_dir = stack.pop()
        try:
            entries = list(os.scandir(top))
        except OSError:
            continue
        seen += len(entries)
        if max_entries is not None and seen > max_entries:
            return None
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if entry.name not in skipped:
                    stack.append((entry.path, secret_dir or _sensitive(entry, root)))
            elif secret_dir or _sensitive(entry, root) or (
                    extra is not None and entry.name not in NOT_SENSITIVE and extra.match(entry.name)):
                found.append(entry.path)
                if len(found) >= MAX_PROJECT_FILES:
                    return found
    return found


def _sensitive(entry: os.DirEntry[str], root: str) -> bool:
    if is_sensitive_name(entry.name):
        return True
    return entry.name in _PATH_ENDS and sensitive_path_part(os.path.relpath(entry.path, root).split(os.sep)) is not None


def _configured(patterns: Iterable[str], root: str, home: str) -> tuple[list[str], list[str]]:
    """``sandbox_hide`` entries: absolute or ``~`` paths (globs allowed), and project-relative globs."""
    paths: list[str] = []
    project_globs: list[str] = []
    for raw in patterns:
        text = raw.strip()
        if not text:
            continue
        if text.startswith("~"):
            text = home + text[1:]
        if os.path.isabs(text):
            matches = glob.glob(text) if glob.has_magic(text) else [text]
            paths += matches[:MAX_GLOB_MATCHES]
        elif glob.has_magic(text):
            project_globs.append(text)
        else:
            paths.append(os.path.join(root, text.rstrip("/")))
    return paths, project_globs


def hidden_set(project_root: Path | str, home: str | None, extra: Sequence[str] = ()) -> Hidden:
    """Everything to hide for one command, as existing real paths; never the project itself or an
    ancestor of it."""
    root = os.path.realpath(project_root)
    home = home or str(Path.home())
    configured, project_globs = _configured(extra, root, home)
    candidates = [os.path.join(home, p) for p in HOME_STORES] + _user_dirs() + list(HOST_SERVICES)
    candidates += configured + project_files(root, project_globs)
    hidden = Hidden()
    seen: set[str] = set()
    for path in candidates:
        with contextlib.suppress(OSError, ValueError):
            real = os.path.realpath(path)
            if real in seen or not os.path.exists(real) or _within(root, real):
                continue
            seen.add(real)
            (hidden.dirs if os.path.isdir(real) else hidden.files).append(real)
    hidden.dirs.sort(key=len)
    kept: list[str] = []
    for d in hidden.dirs:                 # a directory inside a hidden one is hidden already
        if not any(_within(d, k) for k in kept):
            kept.append(d)
    hidden.dirs = kept
    hidden.files = sorted(f for f in hidden.files if not any(_within(f, k) for k in kept))
    return hidden
