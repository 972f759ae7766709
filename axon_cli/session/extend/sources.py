"""Where extension files come from, read once, and whether a project file may widen anything.

Each file is read exactly once into ``ExtensionFile.data``; the loaders parse or execute those
bytes and never open the file again, so what the trust check saw is what runs. Files in the
user's config dir are the user's own and always in force; a project file that runs code or grants
tools is in force only when the folder's ``TrustView`` (``LoadedSettings.trust``) allows its item
(``settings/trust/files.FILE_KINDS`` lists the same files, for ``axon trust`` to show).

With ``claude=True`` Claude Code's folders are read too: ``~/.claude/<sub>/`` before the user's
config dir, ``.claude/<sub>/`` before ``.axon/<sub>/``; with ``nested=True`` their subfolders too
(a command's namespace), up to ``MAX_DEPTH`` folders down, never a hidden one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from axon_cli.settings.config import user_config_dir
from axon_cli.settings.trust import TrustView, file_item

__all__ = ["ExtensionFile", "extension_files", "in_force", "MAX_FILE_BYTES", "MAX_DEPTH"]

MAX_FILE_BYTES = 1_000_000
MAX_DEPTH = 3


@dataclass(frozen=True)
class ExtensionFile:
    path: Path
    shown: str          # ".axon/tools/x.py" for a project file, "~/.config/axon/tools/x.py" for a user one
    data: bytes
    project: bool
    namespace: tuple[str, ...] = ()   # the subfolders it sits in (commands/frontend/x.md: ("frontend",))
    claude: bool = False              # from a .claude folder: written for Claude Code

    @property
    def stem(self) -> str:
        return self.path.stem


def _shown_user(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home):] if text.startswith(home + os.sep) else text


def _paths(folder: Path, suffix: str, nested: bool) -> list[tuple[Path, tuple[str, ...]]]:
    """The files ending in ``suffix`` (sorted; with ``nested``, those of the subfolders after)."""
    found: list[tuple[Path, tuple[str, ...]]] = []
    todo: list[tuple[Path, tuple[str, ...]]] = [(folder, ())]
    while todo:
        here, namespace = todo.pop(0)
        try:
            children = sorted(p for p in here.iterdir() if not p.name.startswith("."))
        except OSError:
            continue
        found += [(p, namespace) for p in children if p.suffix == suffix]
        if nested and len(namespace) < MAX_DEPTH:
            todo += [(p, (*namespace, p.name)) for p in children if p.is_dir() and not p.is_symlink()]
    return found


def _read_dir(folder: Path, suffix: str, project_root: Path | None, *, nested: bool = False,
              claude: bool = False) -> tuple[list[ExtensionFile], list[str]]:
    files: list[ExtensionFile] = []
    problems: list[str] = []
    for path, namespace in _paths(folder, suffix, nested):
        shown = path.relative_to(project_root).as_posix() if project_root else _shown_user(path)
        try:
            if not path.is_file():
                continue
            with open(path, "rb") as fh:
                data = fh.read(MAX_FILE_BYTES + 1)
        except OSError as e:
            problems.append(f"{shown}: cannot read ({e.strerror or e}); skipped")
            continue
        if len(data) > MAX_FILE_BYTES:
            problems.append(f"{shown}: larger than {MAX_FILE_BYTES // 1000} kB; skipped")
            continue
        files.append(ExtensionFile(path, shown, data, project_root is not None, namespace, claude))
    return files, problems


def extension_files(project_root: Path, sub: str, suffix: str, *, claude: bool = False,
                    nested: bool = False) -> tuple[list[ExtensionFile], list[str]]:
    """The user's files (``<config dir>/<sub>/*<suffix>``), then the project's (``.axon/<sub>/``); with
    ``claude``, each preceded by Claude Code's (``~/.claude/<sub>/``, ``.claude/<sub>/``). A later file
    of the same name replaces an earlier one, so the order is the precedence, lowest first."""
    folders: list[tuple[Path, Path | None, bool]] = []
    if claude:
        folders.append((Path.home() / ".claude" / sub, None, True))
    folders.append((user_config_dir() / sub, None, False))
    if claude:
        folders.append((project_root / ".claude" / sub, project_root, True))
    folders.append((project_root / ".axon" / sub, project_root, False))
    files: list[ExtensionFile] = []
    problems: list[str] = []
    for folder, root, from_claude in folders:
        more, trouble = _read_dir(folder, suffix, root, nested=nested, claude=from_claude)
        files += more
        problems += trouble
    return files, problems


def in_force(file: ExtensionFile, kind: str, trust: TrustView) -> bool:
    """Whether ``file`` may run code / grant tools: the user's own always, a project's if trusted."""
    return not file.project or trust.allows(file_item(kind, file.shown, file.data))
