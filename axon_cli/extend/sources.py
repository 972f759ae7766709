"""Where extension files come from, read once, and whether a project file may widen anything.

Each file is read exactly once into ``ExtensionFile.data``; the loaders parse or execute those
bytes and never open the file again, so what the trust check saw is what runs. Files in the
user's config dir are the user's own and always in force; a project file that runs code or grants
tools is in force only when the folder's ``TrustView`` (``LoadedSettings.trust``) allows its item
(``trust/widening.FILE_KINDS`` lists the same files, for ``axon trust`` to show).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from axon_cli.config import user_config_dir
from axon_cli.trust import TrustView, file_item

__all__ = ["ExtensionFile", "extension_files", "in_force", "MAX_FILE_BYTES"]

MAX_FILE_BYTES = 1_000_000


@dataclass(frozen=True)
class ExtensionFile:
    path: Path
    shown: str          # ".axon/tools/x.py" for a project file, "~/.config/axon/tools/x.py" for a user one
    data: bytes
    project: bool

    @property
    def stem(self) -> str:
        return self.path.stem


def _shown_user(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home):] if text.startswith(home + os.sep) else text


def _read_dir(folder: Path, suffix: str, project_root: Path | None) -> tuple[list[ExtensionFile], list[str]]:
    files: list[ExtensionFile] = []
    problems: list[str] = []
    try:
        paths = sorted(p for p in folder.iterdir() if p.suffix == suffix and not p.name.startswith("."))
    except OSError:
        return files, problems
    for path in paths:
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
        files.append(ExtensionFile(path, shown, data, project_root is not None))
    return files, problems


def extension_files(project_root: Path, sub: str, suffix: str) -> tuple[list[ExtensionFile], list[str]]:
    """The user's files (``<config dir>/<sub>/*<suffix>``), then the project's (``.axon/<sub>/``)."""
    user, user_problems = _read_dir(user_config_dir() / sub, suffix, None)
    project, project_problems = _read_dir(project_root / ".axon" / sub, suffix, project_root)
    return user + project, user_problems + project_problems


def in_force(file: ExtensionFile, kind: str, trust: TrustView) -> bool:
    """Whether ``file`` may run code / grant tools: the user's own always, a project's if trusted."""
    return not file.project or trust.allows(file_item(kind, file.shown, file.data))
