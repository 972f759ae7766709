"""Instruction files: ``AGENTS.md``, ``AXON.md``, ``CLAUDE.md`` (also ``.claude/CLAUDE.md``) and
``CLAUDE.local.md``, from the git root (else the project root) down to the working directory; before
them the user's own (``user_instruction_files``): ``AGENTS.md`` in axon's config dir, and the files
Claude Code and Codex users already keep (``~/.claude/CLAUDE.md``, ``~/.codex/AGENTS.md``).

Each text reaches the model once: a file that is a symlink to one already read, a file with the
same text as one already read, and an ``@path`` import of a file already read add nothing (a
``CLAUDE.md`` that is ``@AGENTS.md``, or a symlink to it, is the common case). ``@path`` imports
(Claude Code's syntax, outside code spans and fenced blocks) are followed up to ``MAX_IMPORT_DEPTH``
hops: a file inside the project, or a Markdown file in the home directory; never a sensitive path
(``~/.ssh``, ``.env``, keys, credentials) and never anything else outside. The imported text follows
the file that imports it, under its own path. The same holds for an instruction file that is a
symlink: one pointing at ``~/.aws/credentials`` or ``/etc/…`` is not read.

Instruction files below the working directory are not read at start: ``NestedInstructions`` hands
the text of those between the working directory and a file the model reads, once per file per
session (``read_file`` appends it to its result).
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

from axon_cli.tools.builtin.files.file_tools import NESTED_INSTRUCTIONS  # the ToolContext.extra key

__all__ = ["INSTRUCTION_NAMES", "MAX_INSTRUCTION_BYTES", "MAX_IMPORT_DEPTH", "Loaded", "InstructionReader",
           "instruction_files", "user_instruction_files", "folder_files", "git_root", "NestedInstructions",
           "NESTED_INSTRUCTIONS"]

INSTRUCTION_NAMES = ("AGENTS.md", "AXON.md", "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")
MAX_INSTRUCTION_BYTES = 32 * 1024
MAX_IMPORT_DEPTH = 5

_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_IMPORT = re.compile(r"(?:(?<=\s)|^)@((?:~/|/|\.{1,2}/)?[\w.~/+-]*[\w/+-])")


def git_root(start: Path) -> Path | None:
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def folder_files(folder: Path) -> list[Path]:
    return [folder / name for name in INSTRUCTION_NAMES if (folder / name).is_file()]


def user_instruction_files() -> list[Path]:
    """The user's own instruction files, for every project: axon's, then Claude Code's and Codex's
    (``$CODEX_HOME`` if set), those that exist."""
    from axon_cli.settings.config import user_config_dir

    codex_home = Path(os.environ["CODEX_HOME"]) if os.environ.get("CODEX_HOME") else Path.home() / ".codex"
    places = [user_config_dir() / "AGENTS.md", Path.home() / ".claude" / "CLAUDE.md", codex_home / "AGENTS.md"]
    return [path for path in places if path.is_file()]


def instruction_files(project_root: Path, cwd: Path | None = None) -> list[Path]:
    """The instruction files from the git root (else the project root) down to ``cwd``, outermost
    first (symlinked and duplicate ones included: ``InstructionReader`` drops those)."""
    cwd = (cwd or project_root).resolve()
    top = git_root(cwd) or project_root.resolve()
    try:
        rel = cwd.relative_to(top)
    except ValueError:
        top, rel = cwd, Path(".")
    folders = [top]
    for part in rel.parts:
        folders.append(folders[-1] / part)
    return [path for folder in folders for path in folder_files(folder)]


@dataclass
class Loaded:
    """One instruction text to show: its path as shown, its text, whether it was cut short."""

    shown: str
    text: str
    truncated: bool = False


@dataclass
class InstructionReader:
    """Reads instruction files, each real file and each text at most once, within a byte budget."""

    project_root: Path
    limit: int = MAX_INSTRUCTION_BYTES
    used: int = 0
    seen_files: set[str] = field(default_factory=set)
    seen_texts: set[str] = field(default_factory=set)
    skipped: list[str] = field(default_factory=list)     # imports not followed, and why

    def __post_init__(self) -> None:
        self.project_root = self.project_root.resolve()
        self.top = git_root(self.project_root) or self.project_root

    def shown(self, path: Path) -> str:
        for base, prefix in ((self.top, ""), (Path.home(), "~/")):
            try:
                return prefix + path.relative_to(base).as_posix()
            except ValueError:
                continue
        return str(path)

    def read(self, path: Path, depth: int = 0) -> list[Loaded]:
        """``path``'s text (if not read before) followed by the files it imports."""
        real = os.path.realpath(path)
        if real in self.seen_files:
            return []
        self.seen_files.add(real)
        if self._refused(path, Path(real), f"{self.shown(path)} ->"):
            return []       # an instruction file linked to ~/.ssh/id_rsa or /etc/… is not sent
        try:
            data = path.read_bytes()
        except OSError:
            return []
        text = data.decode("utf-8", "replace").strip()
        digest = hashlib.sha256(text.encode()).hexdigest()
        if digest in self.seen_texts:
            return []
        self.seen_texts.add(digest)
        imports = self._imports(text, path.parent, depth)
        own = _without_imports_only(text)
        out: list[Loaded] = []
        if own:
            out.append(self._budgeted(self.shown(path), own))
        for target in imports:
            out.extend(self.read(target, depth + 1))
        return [item for item in out if item.text or item.truncated]

    def _budgeted(self, shown: str, text: str) -> Loaded:
        data = text.encode("utf-8")
        left = self.limit - self.used
        if left <= 0:
            return Loaded(shown, "", truncated=True)
        if len(data) > left:
            self.used = self.limit
            return Loaded(shown, data[:left].decode("utf-8", "ignore"), truncated=True)
        self.used += len(data)
        return Loaded(shown, text)

    def _imports(self, text: str, base: Path, depth: int) -> list[Path]:
        if depth >= MAX_IMPORT_DEPTH:
            return []
        targets: list[Path] = []
        for word in import_words(text):
            target = self._resolve(word, base)
            if target is not None and target not in targets:
                targets.append(target)
        return targets

    def _resolve(self, word: str, base: Path) -> Path | None:
        path = Path(os.path.expanduser(word)) if word.startswith("~") else Path(word)
        path = path if path.is_absolute() else base / path
        lexical = Path(os.path.normpath(path))
        if not lexical.is_file():
            return None       # not a file: ``@someone`` or ``@decorator`` in prose stays prose
        if self._refused(lexical, Path(os.path.realpath(lexical)), f"@{word}:"):
            return None
        return lexical

    def _refused(self, lexical: Path, real: Path, label: str) -> bool:
        """Whether an instruction text may not come from ``real``: a sensitive path, or outside both
        the project and (for a Markdown file) the home directory."""
        from axon_cli.policy.paths import sensitive_reason

        if sensitive_reason(str(lexical)) or sensitive_reason(str(real)):
            self.skipped.append(f"{label} a sensitive path, never read")
            return True
        inside = _within(real, self.top) and _within(lexical, self.top)
        from axon_cli.settings.config import user_config_dir

        in_home = real.suffix.lower() == ".md" and any(
            _within(real, base.resolve()) for base in (Path.home(), user_config_dir()))
        if not (inside or in_home):
            self.skipped.append(f"{label} outside the project (only Markdown files in your home are read)")
            return True
        return False


def import_words(text: str) -> list[str]:
    """The ``@path`` words of ``text``, outside fenced code blocks and code spans."""
    words: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        words.extend(_IMPORT.findall(_CODE_SPAN.sub("", line)))
    return words


def _without_imports_only(text: str) -> str:
    """``text``, or "" when it is nothing but import lines (``@AGENTS.md``): its imports say it all."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines and all(re.fullmatch(r"(@\S+\s*)+", line) for line in lines):
        return ""
    return text


def _within(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
        return True
    except ValueError:
        return False


class NestedInstructions:
    """The instruction files below the working directory, handed over once each, when the model
    first reads a file in (or below) their folder."""

    def __init__(self, project_root: Path, cwd: Path, reader: InstructionReader) -> None:
        self.cwd = cwd.resolve()
        self.top = reader.top
        self.reader = reader          # shares what the start already loaded: nothing is repeated
        self._lock = threading.Lock()

    def for_read(self, path: Path) -> str:
        """The note to append to a read of ``path``: the not yet seen instruction files of the folders
        between the working directory (excluded) and ``path``'s folder (included); "" when none."""
        folder = path.resolve().parent
        if not (_within(folder, self.cwd) and _within(folder, self.top)) or folder == self.cwd:
            return ""
        rel = folder.relative_to(self.cwd)
        folders = [self.cwd / Path(*rel.parts[:i]) for i in range(1, len(rel.parts) + 1)]
        with self._lock:
            self.reader.limit = self.reader.used + MAX_INSTRUCTION_BYTES    # a fresh budget per note
            loaded = [item for f in folders for file in folder_files(f) for item in self.reader.read(file)]
        if not loaded:
            return ""
        parts = [f"### {item.shown}\n{item.text}" + (" [… truncated]" if item.truncated else "")
                 for item in loaded]
        return ("\n\n[axon: project instructions for this directory (follow them for files here; a more "
                "specific directory's file wins):]\n" + "\n\n".join(parts))
