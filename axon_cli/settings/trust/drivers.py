"""The project files a build tool reads as its instructions: ``make`` runs the Makefile's recipes,
``npm test`` the scripts of package.json, ``pytest`` every conftest.py. A hook or MCP server that runs
one of these tools is pinned to those files as well as to its command line.

The table is deliberately about files that *are code or name code* (recipes, scripts, plugins), not
about every config file a tool reads.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DRIVERS", "driver_files", "MAX_WALK_DIRS"]

_PYTEST = ("conftest.py", "pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini")
_NODE = ("package.json",)
DRIVERS: dict[str, tuple[str, ...]] = {
    "make": ("Makefile", "GNUmakefile", "makefile"), "gmake": ("Makefile", "GNUmakefile", "makefile"),
    "npm": _NODE, "yarn": _NODE, "pnpm": _NODE, "bun": _NODE, "npx": _NODE,
    "pytest": _PYTEST, "py.test": _PYTEST,
    "tox": ("tox.ini", "pyproject.toml", "setup.cfg"), "nox": ("noxfile.py",),
    "just": ("justfile", "Justfile", ".justfile"), "task": ("Taskfile.yml", "Taskfile.yaml", "Taskfile.dist.yml"),
    "cargo": ("Cargo.toml", "build.rs"), "rake": ("Rakefile",), "invoke": ("tasks.py",),
    "gradle": ("build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"),
    "mvn": ("pom.xml",), "pre-commit": (".pre-commit-config.yaml",),
}
# Tools that load files of one name from anywhere below the project (pytest: every conftest.py).
_ANYWHERE = {"pytest": "conftest.py", "py.test": "conftest.py", "tox": "conftest.py"}
MAX_WALK_DIRS = 2000
MAX_DEPTH = 6
_SKIP_DIRS = {"node_modules", "__pycache__", "site-packages", "dist", "build", "target"}


def driver_files(tool: str, cwd: Path) -> list[Path]:
    """The existing driver files of ``tool`` run in ``cwd`` (absolute paths; [] for any other tool)."""
    found = [cwd / name for name in DRIVERS.get(tool, ()) if (cwd / name).is_file()]
    anywhere = _ANYWHERE.get(tool)
    if anywhere:
        found += [p for p in _walk_for(cwd, anywhere) if p not in found]
    return found


def _walk_for(top: Path, name: str) -> list[Path]:
    """Files called ``name`` below ``top`` (bounded: depth, directory count; hidden dirs, virtualenvs
    and dependency folders skipped)."""
    found: list[Path] = []
    seen = 0
    queue: list[tuple[str, int]] = [(str(top), 0)]
    while queue and seen < MAX_WALK_DIRS:
        folder, depth = queue.pop(0)
        seen += 1
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        if any(e.name == "pyvenv.cfg" for e in entries):
            continue                               # a virtualenv: installed code, not the project's
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.name == name and entry.is_file(follow_symlinks=False):
                found.append(Path(entry.path))
            elif (depth < MAX_DEPTH and entry.is_dir(follow_symlinks=False) and not entry.name.startswith(".")
                  and entry.name not in _SKIP_DIRS):
                queue.append((entry.path, depth + 1))
    return found
