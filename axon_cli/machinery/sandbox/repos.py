"""Every git repository the project holds, so the sandbox keeps each one's ``.git`` read-only.

A ``.git`` below the project root — a submodule's gitfile (``gitdir: ../.git/modules/lib``), a
nested or embedded repository's directory, a worktree's gitfile — names a config whose commands
(``core.fsmonitor``, hooks, filters) run with the user's full rights the next time anyone runs git
there, or git recurses into it from the top level. So inside a writable project each of them, and
the directory a gitfile points to (when in the project), is mounted read-only. A mount point cannot
be renamed or removed, but a directory holding one can: every directory between the project root
and a protected path is bound onto itself too (``pins``), so ``mv lib lib2 && mkdir lib`` fails.

Found by a bounded, cached walk (``scan``) that skips dependency folders, plus the index's gitlinks
(``git ls-files -s``, run hardened and only when the index changed): a submodule whose directory
holds no ``.git`` yet gets a transient empty ``.git`` mount point (``mountpoints``), so nothing can
populate it with a repository of its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field

from axon_cli.machinery.sandbox.bounded_walk import Scan, scan_cached

__all__ = ["NestedGit", "nested_git", "gitfile_target", "pins", "SKIPPED_DIRS"]

SKIPPED_DIRS = frozenset({"node_modules", ".venv", "venv", ".tox", ".nox", "__pycache__", ".mypy_cache",
                          ".pytest_cache", ".ruff_cache", "site-packages", ".axon"})
MAX_ENTRIES = 300_000
MAX_SECONDS = 1.5
GITLINK = "160000"
_gitlink_cache: dict[str, tuple[tuple[int, int], list[str]]] = {}   # root -> (index stat, gitlink paths)


@dataclass
class NestedGit:
    protected: list[str] = field(default_factory=list)   # existing real paths to mount read-only
    missing: list[str] = field(default_factory=list)     # `<submodule>/.git` (or a missing submodule's
                                                         # directory) to hold as read-only mount points


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def gitfile_target(git_file: str) -> str | None:
    """The directory a gitfile (``gitdir: …``) names, resolved against the file's directory."""
    try:
        with open(git_file, encoding="utf-8") as fh:
            first = fh.readline(4096).strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not first.startswith("gitdir:"):
        return None
    return os.path.realpath(os.path.join(os.path.dirname(git_file), first[7:].strip()))


def _is_git(entry: os.DirEntry[str]) -> bool:
    return entry.name == ".git"


def _walk(root: str) -> list[str]:
    scan = scan_cached(("git", root), lambda: Scan(root, _is_git, skip_names=SKIPPED_DIRS,
                                                   max_entries=MAX_ENTRIES, max_seconds=MAX_SECONDS))
    return [p for p in scan.run() if os.path.dirname(p) != root]      # the top-level .git: bwrap's own


def _gitlinks(root: str) -> list[str]:
    """Paths (relative) of the index's submodules; read again only when the index file changed."""
    index = os.path.join(root, ".git", "index")
    try:
        st = os.stat(index)
    except OSError:
        return []
    key = (st.st_mtime_ns, st.st_size)
    cached = _gitlink_cache.get(root)
    if cached is not None and cached[0] == key:
        return cached[1]
    from axon_cli.kernel.gitsafe import run_git

    out = run_git(["ls-files", "-s", "-z"], root, drivers=(), timeout=5.0) or ""
    links = [line.split("\t", 1)[1] for line in out.split("\0") if line.startswith(GITLINK + " ") and "\t" in line]
    _gitlink_cache[root] = (key, links)
    return links


def nested_git(project_root: str) -> NestedGit:
    """The ``.git`` entries below the root, their gitfile targets inside the project, and the mount
    points of submodules without one."""
    root = os.path.realpath(project_root)
    out = NestedGit()
    for path in _walk(root):
        if os.path.islink(path):         # a symlink cannot be mounted over: its directory turns read-only
            out.protected.append(os.path.dirname(path))
        real = os.path.realpath(path)
        if not _within(real, root) or real == root:
            continue                      # outside the project: read-only already
        out.protected.append(real)
        target = gitfile_target(real) if os.path.isfile(real) else None
        if target and _within(target, root) and target != root and os.path.isdir(target):
            out.protected.append(target)
    for rel in _gitlinks(root):
        holder = os.path.realpath(os.path.join(root, rel))
        dot_git = os.path.join(holder, ".git")
        if not _within(holder, root) or holder == root:
            continue
        if os.path.isdir(holder) and not os.path.lexists(dot_git):
            out.missing.append(dot_git)
        elif not os.path.lexists(holder):      # a registered submodule not checked out: hold its directory
            out.missing.append(_first_missing(root, holder))
    return out


def _first_missing(root: str, path: str) -> str:
    """The shallowest directory of ``path`` below ``root`` that does not exist (held read-only and empty,
    nothing can be made below it)."""
    current = root
    for part in os.path.relpath(path, root).split(os.sep):
        current = os.path.join(current, part)
        if not os.path.lexists(current):
            return current
    return path


def pins(root: str, protected: list[str]) -> Iterator[str]:
    """The directories strictly between ``root`` and each protected path, each once, shallow first: bound
    onto themselves they become mount points that cannot be renamed away."""
    seen: set[str] = set()
    for path in sorted(protected, key=lambda p: p.count("/")):
        if not _within(path, root) or path == root:
            continue
        parts = os.path.relpath(os.path.dirname(path), root).split(os.sep)
        current = root
        for part in parts if parts != ["."] else []:
            current = os.path.join(current, part)
            if current not in seen:
                seen.add(current)
                yield current
