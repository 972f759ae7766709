"""Which project files a command runs: what a hook or MCP server is pinned to besides its command line.

A command *runs a project file* when a word of it names a path inside the project as the program
(``./run.sh``, ``tools/lint``) or as an interpreter's script (``sh scripts/post-check.sh``,
``python tools/mcp_server.py``, ``python -m tools.server``, ``node x.js``), at any depth of the shell
line (``bash -c '…'``, ``env``/``timeout``/``nice`` wrappers, pipelines), or when it runs a build tool
whose instructions are project files (``make`` → the Makefile, ``npm`` → package.json, ``pytest`` →
conftest.py …, see ``drivers``). Other arguments (``black file.py``, ``> out.txt``) are data, not code.

A script path that does not exist yet is pinned as absent (creating it is a change); a driver file
that does not exist is not pinned. Each pin is (project-relative path, sha256 of the bytes or "absent").
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from axon_cli.trust.drivers import driver_files

__all__ = ["Pins", "ABSENT", "command_files", "argv_files", "hook_files", "server_files", "diagnostics_files", "pin", "digest_of"]

Pins = tuple[tuple[str, str], ...]
ABSENT = "absent"

_SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish"}
_PYTHON = re.compile(r"^(python|pypy)(\d+(\.\d+)?)?$")
_OTHERS = {"node", "nodejs", "deno", "bun", "ruby", "perl", "php", "lua", "Rscript", "tsx", "ts-node", "source", "."}
_INLINE = {"-c", "-e", "--eval", "-p", "--print", "-E"}          # the next word is code, not a file
_TAKES_ARG = {"-W", "-X", "-o", "-O", "-r", "--require", "-I", "--import", "--loader", "--config"}
_PROJECT_DIR = re.compile(r"\$(\{)?(AXON|CLAUDE)_PROJECT_DIR(?(1)\})")    # set for every hook run
_RUNNERS = {"uv", "poetry", "pipenv", "pdm", "hatch", "rye", "deno", "bun", "npx", "pnpx"}   # `X run <program>`


def _interpreter(name: str) -> bool:
    return name in _SHELLS or name in _OTHERS or bool(_PYTHON.match(name))


class _Found:
    """Collects what one command runs, as absolute paths inside ``root``."""

    def __init__(self, root: Path, cwd: Path) -> None:
        self.root = os.path.realpath(root)
        self.cwd = cwd
        self.paths: dict[str, bool] = {}          # path -> pinned even when absent

    def script(self, word: str) -> None:
        self._add(word, absent_too="/" in word or "." in word)

    def _add(self, word: str, absent_too: bool) -> None:
        word = _PROJECT_DIR.sub(lambda m: self.root, word)
        if not word or word.startswith(("$", "~", "-")):
            return
        path = os.path.normpath(os.path.join(self.cwd, word))
        if not _inside(path, self.root) or os.path.isdir(path):
            return
        exists = os.path.lexists(path)
        if exists and not _inside(os.path.realpath(path), self.root):
            return                                  # a link to a system binary: not a project file
        if exists or absent_too:
            self.paths[path] = True

    def tool(self, name: str) -> None:
        for path in driver_files(name, self.cwd):
            self._add(str(path), absent_too=False)

    def module(self, dotted: str) -> None:
        base = os.path.join(*dotted.split(".")) if dotted else ""
        for rel in (f"{base}.py", os.path.join(base, "__main__.py"), os.path.join(base, "__init__.py")):
            if base and os.path.isfile(os.path.join(self.cwd, rel)):
                self._add(rel, absent_too=False)

    def argv(self, words: Sequence[str]) -> None:
        """One simple command: its program, an interpreter's script, a runner's program, a tool's files."""
        if not words:
            return
        program, rest = words[0], list(words[1:])
        name = program.rsplit("/", 1)[-1]
        if "/" in program:
            self._add(program, absent_too=True)
        self.tool(name)
        if name in _RUNNERS and rest[:1] == ["run"]:
            rest = _skip_options(rest[1:])
            if name in ("deno", "bun", "npx", "pnpx") and rest:
                self.script(rest[0])
            elif rest:
                self.argv(rest)
            return
        if _interpreter(name):
            self._interpreter_args(name, rest)

    def _interpreter_args(self, name: str, args: list[str]) -> None:
        i = 0
        while i < len(args):
            word = args[i]
            if word == "-m" and _PYTHON.match(name) and i + 1 < len(args):
                self.module(args[i + 1])
                self.tool(args[i + 1])             # python -m pytest: pytest's files
                return
            if name in _SHELLS and word.startswith("-") and not word.startswith("--") and "c" in word[1:]:
                for words in _simple_commands(args[i + 1]) if i + 1 < len(args) else []:
                    self.argv(words)                # `sh -c STRING` (an MCP server's argv)
                return
            if word in _INLINE:
                return
            if word == "--":
                i += 1
                continue
            if word.startswith("-"):
                i += 2 if word in _TAKES_ARG else 1
                continue
            self.script(word)
            return


def _skip_options(words: list[str]) -> list[str]:
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 1
    return words[i:]


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _simple_commands(command: str) -> list[list[str]]:
    from axon_cli.permissions.shell.analyze import analyze

    analysis = analyze(command)
    if analysis.parsed:
        return analysis.simple_commands
    try:
        return [shlex.split(command)]
    except ValueError:
        return [command.split()]


def _relative(found: _Found) -> list[str]:
    return sorted(os.path.relpath(p, found.root) for p in found.paths)


_PROJECT_VAR = re.compile(r"\$(?:\{(?:CLAUDE|AXON)_PROJECT_DIR\}|(?:CLAUDE|AXON)_PROJECT_DIR\b)")


def command_files(command: str, root: Path, cwd: Path | None = None) -> list[str]:
    """Project-relative paths of the files a shell command line runs (see the module docstring).
    ``$CLAUDE_PROJECT_DIR`` and ``$AXON_PROJECT_DIR`` (set for every hook) name the project root."""
    found = _Found(root, Path(os.path.realpath(cwd or root)))
    command = _PROJECT_VAR.sub(lambda _m: str(root), command)
    for words in _simple_commands(command):
        found.argv(words)
    return _relative(found)


def argv_files(argv: Sequence[str], root: Path, cwd: Path | None = None) -> list[str]:
    """The same for a program and its arguments run without a shell (an MCP server)."""
    found = _Found(root, Path(os.path.realpath(cwd or root)))
    found.argv(list(argv))
    return _relative(found)


def hook_files(table: Any, root: Path) -> list[str]:
    """What one ``[[hooks.EVENT]]`` table of the project runs (it runs in the project root)."""
    command = table.get("command") if isinstance(table, dict) else None
    return command_files(command, root) if isinstance(command, str) and command.strip() else []


def diagnostics_files(command: Any, root: Path) -> list[str]:
    """What one ``[diagnostics]`` command of the project runs (in the project root); ``{file}``, the
    edited file, is data to the command, not one of its files."""
    if not isinstance(command, str) or not command.strip():
        return []
    return command_files(command.replace("{file}", "FILE"), root)


def server_files(raw: Any, root: Path) -> list[str]:
    """What one MCP server entry runs (``command`` + ``args`` in its ``cwd``; a URL server runs nothing)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("command"), str):
        return []
    from axon_cli.mcp.servers import expand_vars

    args = raw.get("args")
    words: list[Any] = [raw["command"], *(args if isinstance(args, list) else [])]
    argv = [expand_vars(str(w), os.environ) for w in words]
    cwd = raw.get("cwd")
    where = root / expand_vars(cwd, os.environ) if isinstance(cwd, str) and cwd else root
    return argv_files(argv, root, where)


def digest_of(path: Path | str) -> str:
    """sha256 of a file's bytes, or ``ABSENT`` when it cannot be read as a file."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return ABSENT
    return h.hexdigest()


def pin(root: Path, rels: Iterable[str]) -> Pins:
    """Each file with the digest of its bytes now."""
    return tuple((rel, digest_of(Path(root) / rel)) for rel in sorted(set(rels)))
