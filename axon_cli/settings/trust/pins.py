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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from axon_cli.settings.trust.drivers import DRIVERS, driver_files
from axon_cli.settings.trust.interpreters import (
    SHELLS,
    CannotTell,
    closed_python,
    interpreter_table,
    script_of,
)

__all__ = ["Pins", "ABSENT", "Runs", "command_runs", "argv_runs", "hook_runs", "server_runs", "diagnostics_runs",
           "command_files", "argv_files", "hook_files", "server_files", "diagnostics_files", "pin", "digest_of"]

Pins = tuple[tuple[str, str], ...]
ABSENT = "absent"

_PROJECT_VAR = re.compile(r'"?\$(?:\{(?:CLAUDE|AXON)_PROJECT_DIR\}|(?:CLAUDE|AXON)_PROJECT_DIR(?![A-Za-z0-9_]))"?')
_HOME_VAR = re.compile(r'(?<![A-Za-z0-9_/])(?:"?\$(?:\{HOME\}|HOME(?![A-Za-z0-9_]))"?|~(?=/))')
_EXPANDS = re.compile(r"[$`*?\[]")          # a word axon cannot resolve: a variable, a substitution, a glob
_MOVES = {"cd", "pushd", "popd"}
_EVAL = {"eval", "exec", "command", "builtin", "trap", "alias"}
# variables that change which code a program runs (PYTHONPATH, NODE_OPTIONS, LD_PRELOAD, BASH_ENV …)
_RISKY_VAR = re.compile(r"^(?:PATH|ENV|IFS|SHELL|.*PATH|LD_.*|DYLD_.*|PYTHON.*|NODE_.*|BASH_.*|PERL.*|RUBY.*|.*LIB|"
                        r".*OPTS?|.*OPTIONS|.*_HOME|.*COMMAND|.*CMD|.*EDITOR|.*PAGER|GIT_.*|npm_config_.*)$",
                        re.IGNORECASE)
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=")
# options that make a build tool or runner read its instructions from elsewhere (or load other code)
_ELSEWHERE = {"--file", "--makefile", "--prefix", "--cwd", "--dir", "--directory", "--chdir", "--manifest-path",
              "--config", "--config-file", "--rootdir", "--confcutdir", "--project", "--project-dir", "--gemfile",
              "--include-dir", "--build-file", "--settings-file", "--init-script", "--from", "--with",
              "--with-requirements", "--env-file", "--workspace", "--filter", "--justfile", "--working-directory",
              "--taskfile", "--noxfile", "--rakefile", "--rakelibdir", "--libdir", "--rcfile", "--package", "--call",
              "--override-ini", "--plugin", "--global", "--location", "--search-root", "--collection"}
_ELSEWHERE_SHORT = {"make": "CfI", "gmake": "CfI", "npm": "Cw", "pnpm": "Cw", "yarn": "", "pytest": "cpo",
                    "py.test": "cpo", "tox": "c", "nox": "f", "just": "fd", "task": "dt", "cargo": "CZ", "rake": "fIR",
                    "invoke": "cr", "gradle": "bcpI", "mvn": "fs", "pre-commit": "c", "poetry": "CP", "pdm": "p",
                    "npx": "pc", "pnpx": "pc", "bunx": "p"}
_PACKAGE_RUNNERS = {"npx", "pnpx", "bunx"}
_RUNNERS = {"uv", "poetry", "pipenv", "pdm", "hatch", "rye", "deno", "bun"}   # `X run <program>`


@dataclass(frozen=True)
class Runs:
    """What a command runs: every project file (relative paths), or ``unknown`` saying why axon
    cannot tell (then ``files`` holds what it did find, and nothing is pinned by default)."""

    files: tuple[str, ...] = ()
    unknown: str = ""

    @property
    def known(self) -> bool:
        return not self.unknown


class _Found:
    """Collects what one command runs, as absolute paths inside ``root``; the first reason it cannot
    tell is kept."""

    def __init__(self, root: Path, cwd: Path) -> None:
        self.root = os.path.realpath(root)
        self.cwd = cwd
        self.paths: dict[str, bool] = {}
        self.unknown = ""

    def cannot(self, reason: str) -> None:
        self.unknown = self.unknown or reason

    def script(self, word: str) -> None:
        self._add(word, absent_too=True)

    def _add(self, word: str, absent_too: bool) -> None:
        if not word:
            return
        if _EXPANDS.search(word):
            self.cannot(f"`{word}` is expanded by the shell (a variable, substitution or pattern)")
            return
        if word.startswith("~") or word.startswith("-"):
            self.cannot(f"`{word}` is not a file name axon can resolve")
            return
        path = os.path.normpath(os.path.join(self.cwd, word))
        if os.path.isdir(path):
            return
        real = os.path.realpath(path) if os.path.lexists(path) else path
        if not _inside(path, self.root) and not _inside(real, self.root):
            return                                  # outside the project (a system binary, the user's own)
        if os.path.lexists(path) and not _inside(real, self.root):
            return                                  # a link to a system binary: not a project file
        if os.path.lexists(path) or absent_too:
            self.paths[path] = True

    def tool(self, name: str, args: list[str]) -> None:
        for path in driver_files(name, self.cwd):
            self._add(str(path), absent_too=False)
        if name in DRIVERS or name in _RUNNERS or name in _PACKAGE_RUNNERS:
            short = _ELSEWHERE_SHORT.get(name, "")
            for word in args:
                flag = word.split("=", 1)[0]
                if word == "--":
                    return
                if flag in _ELSEWHERE or (word[:1] == "-" and word[1:2] != "-" and any(c in short for c in word[1:])):
                    self.cannot(f"{name} {flag} makes it read its instructions from elsewhere")
                    return

    def argv(self, words: Sequence[str]) -> None:
        """One simple command: its program, an interpreter's script, a runner's program, a tool's files."""
        if not words:
            return
        program, rest = words[0], list(words[1:])
        if _EXPANDS.search(program):
            self.cannot(f"the program `{program}` comes from a variable, substitution or pattern")
            return
        name = program.rsplit("/", 1)[-1]
        if name in _MOVES:
            if rest and os.path.realpath(os.path.join(self.cwd, rest[0])) == self.root and len(rest) == 1:
                return                              # cd "$CLAUDE_PROJECT_DIR": where it already is
            self.cannot(f"`{name}` changes the folder the files it runs are found in")
            return
        if name in _EVAL and rest:
            self.cannot(f"`{name}` runs a command axon does not see as such")
            return
        if name in ("find", "xargs", "parallel", "watch") and any(w.startswith("-exec") or w == "-ok" for w in rest):
            self.cannot(f"{name} runs commands on files it finds")
            return
        if "/" in program:
            self._add(program, absent_too=True)
        else:
            self._on_path(program)
        self.tool(name, rest)
        if self.unknown:
            return
        if name in _PACKAGE_RUNNERS:
            self._package(name, rest)
        elif name in _RUNNERS and rest[:1] == ["run"]:
            self._runner(name, rest[1:])
        elif interpreter_table(name) is not None:
            self._interpreter(name, rest)

    def _on_path(self, name: str) -> None:
        """A program found through PATH: a PATH folder inside the project (a virtualenv's ``bin``,
        ``node_modules/.bin``) makes it a project file, pinned up to the first that exists."""
        for entry in os.environ.get("PATH", "").split(os.pathsep):
            if not entry or not os.path.isabs(entry):
                self.cannot(f"PATH holds the relative folder {entry or '(empty)'!r}, so `{name}` may be a project file")
                return
            if not _inside(os.path.realpath(entry), self.root):
                if os.path.isfile(os.path.join(entry, name)) and os.access(os.path.join(entry, name), os.X_OK):
                    return                          # found outside the project first
                continue
            candidate = os.path.join(entry, name)
            self._add(candidate, absent_too=True)
            if os.path.lexists(candidate):
                return

    def _runner(self, name: str, rest: list[str]) -> None:
        if name == "deno" and _deno_flags(rest):
            rest = [w for w in rest if not w.startswith("-")]
        if rest[:1] and rest[0].startswith("-"):
            self.cannot(f"`{name} run {rest[0]}`: axon does not know what {name} resolves with that option")
            return
        if not rest:
            return
        if name in ("deno", "bun") or rest[0].endswith((".py", ".js", ".ts", ".mjs", ".sh")):
            self.script(rest[0])
        else:
            self.argv(rest)

    def _package(self, name: str, rest: list[str]) -> None:
        """``npx [-y] PKG args``: PKG comes from the project's node_modules when it is there."""
        words = [w for w in rest if w not in ("-y", "--yes", "-q", "--quiet", "--no-install")]
        if not words or words[0].startswith("-"):
            self.cannot(f"{name} {' '.join(rest[:1])}: axon does not know which package it runs")
            return
        spec = words[0]
        if spec.startswith((".", "/")):
            self.script(spec)
            return
        package = re.sub(r"(?<=.)@[^/]*$", "", spec)
        installed = os.path.join(self.cwd, "node_modules", package)
        if os.path.isdir(installed):
            self.cannot(f"{name} {spec} runs node_modules/{package}, whose files axon does not pin")
            return
        self._add(os.path.join("node_modules", ".bin", package.rsplit("/", 1)[-1]), absent_too=True)
        self._add(os.path.join("node_modules", package, "package.json"), absent_too=True)
        if package in ("tsx", "ts-node", "node"):
            self._interpreter(package, words[1:])

    def _interpreter(self, name: str, args: list[str]) -> None:
        found = script_of(name, args)
        if isinstance(found, CannotTell):
            self.cannot(found.reason)
            return
        for word in found.before:
            self.script(word)
        if found.kind == "file":
            self.script(found.word)
        elif found.kind == "module":
            self.module(found.word)
            self.tool(found.word, [])                # python -m pytest: pytest's files
        elif found.kind == "inline" and name in SHELLS:
            for words in _simple_commands(found.word, self):
                self.argv(words)                    # `sh -c STRING` (an MCP server's argv)
        elif found.kind == "inline" and name.startswith(("python", "pypy")) and not _requoted(found.word) \
                and closed_python(found.word):
            return                                  # `python3 -c "import sys; …"`: no project file
        elif found.kind == "inline":
            self.cannot(f"{name} runs inline code, which may load project files axon cannot name")
        else:
            self.cannot(f"{name} reads its program from standard input")

    def module(self, dotted: str) -> None:
        base = os.path.join(*dotted.split(".")) if dotted else ""
        for rel in (f"{base}.py", os.path.join(base, "__main__.py"), os.path.join(base, "__init__.py")):
            if base and os.path.isfile(os.path.join(self.cwd, rel)):
                self._add(rel, absent_too=False)


def _requoted(code: str) -> bool:
    """Inline code that still carries shell quoting (``'"'"'`` from a line quoted inside another shell
    line): what Python would run is not what axon read, so it is never taken as closed."""
    return code[:1] in ("'", '"') or "'\"'\"'" in code or '"\'"\'"' in code


def _deno_flags(words: list[str]) -> bool:
    flags = [w for w in words if w.startswith("-")]
    return all(w.startswith(("--allow-", "--deny-", "--no-prompt", "-A", "-q", "--quiet")) for w in flags)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _simple_commands(command: str, found: _Found) -> list[list[str]]:
    from axon_cli.shell.analyze import analyze

    analysis = analyze(command)
    if not analysis.parsed:
        found.cannot("the shell line does not parse")
        return []
    for reason in analysis.opaque_reasons:
        found.cannot(reason)
    _assignments(command, found)
    return analysis.simple_commands


_STARTS = {";", "&&", "||", "|", "&", "(", ")", "{", "}", "!", "then", "do", "else", "elif", "if", "while", "until",
           "time", "nohup", "sudo", "command", "exec", "nice", "stdbuf", "timeout"}


def _assignments(command: str, found: _Found) -> None:
    """Variables set for a command (``A=1 cmd``, ``env A=1 cmd``) that change what it runs, and
    ``env``'s own options (``-C DIR``, ``-S``): cannot tell."""
    lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=";&|(){}!")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        found.cannot("the shell line does not parse")
        return
    start, in_env = True, False
    for token in tokens:
        if in_env and token.startswith("-") and token not in ("-i", "--ignore-environment", "-u", "--unset"):
            found.cannot(f"env {token} changes how the command runs")
            return
        match = _ASSIGNMENT.match(token)
        if match and (start or in_env):
            if _RISKY_VAR.match(match.group(1)):
                found.cannot(f"it sets {match.group(1)}, which changes which code runs")
                return
            continue
        in_env = token == "env" or (in_env and (token.startswith("-") or bool(match)))
        start = token in _STARTS or in_env


def _relative(found: _Found) -> tuple[str, ...]:
    return tuple(sorted(os.path.relpath(p, found.root) for p in found.paths))


def _resolved_vars(command: str, root: Path) -> str:
    """The exact project-dir forms (``$CLAUDE_PROJECT_DIR``, ``${AXON_PROJECT_DIR}``, quoted) and
    ``$HOME``/``~/`` as the paths they are for a hook; any other expansion stays (cannot tell)."""
    command = _PROJECT_VAR.sub(lambda _m: shlex.quote(str(root)), command)
    home = os.environ.get("HOME") or ""
    return _HOME_VAR.sub(lambda _m: shlex.quote(home), command) if home else command


def command_runs(command: str, root: Path, cwd: Path | None = None) -> Runs:
    """What a shell command line run in ``cwd`` (default: the project root) runs (module docstring)."""
    found = _Found(root, Path(os.path.realpath(cwd or root)))
    for words in _simple_commands(_resolved_vars(command, root), found):
        found.argv(words)
    return Runs(_relative(found), found.unknown)


def argv_runs(argv: Sequence[str], root: Path, cwd: Path | None = None, env: Any = None) -> Runs:
    """The same for a program and its arguments run without a shell (an MCP server), with the
    variables ``env`` it is given."""
    found = _Found(root, Path(os.path.realpath(cwd or root)))
    for name in (env if isinstance(env, dict) else {}):
        if _RISKY_VAR.match(str(name)):
            found.cannot(f"it sets {name}, which changes which code runs")
    words = list(argv)
    if words and words[0].rsplit("/", 1)[-1] == "env":
        _assignments(shlex.join(words), found)
        words = [w for w in words[1:] if not _ASSIGNMENT.match(w) and w not in ("-i", "--ignore-environment")]
    found.argv(words)
    return Runs(_relative(found), found.unknown)


def command_files(command: str, root: Path, cwd: Path | None = None) -> list[str]:
    """The project files of ``command_runs`` that axon did find (all of them only when it can tell)."""
    return list(command_runs(command, root, cwd).files)


def argv_files(argv: Sequence[str], root: Path, cwd: Path | None = None) -> list[str]:
    return list(argv_runs(argv, root, cwd).files)


def hook_runs(table: Any, root: Path) -> Runs:
    """What one ``[[hooks.EVENT]]`` table of the project runs (it runs in the project root)."""
    command = table.get("command") if isinstance(table, dict) else None
    return command_runs(command, root) if isinstance(command, str) and command.strip() else Runs()


def diagnostics_runs(command: Any, root: Path) -> Runs:
    """What one ``[diagnostics]`` command of the project runs (in the project root); ``{file}``, the
    edited file, is data to the command, not one of its files."""
    if not isinstance(command, str) or not command.strip():
        return Runs()
    return command_runs(command.replace("{file}", "FILE"), root)


def server_runs(raw: Any, root: Path) -> Runs:
    """What one MCP server entry runs (``command`` + ``args`` in its ``cwd``; a URL server runs nothing)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("command"), str):
        return Runs()
    from axon_cli.settings.mcp_servers import expand_vars

    args = raw.get("args")
    words: list[Any] = [raw["command"], *(args if isinstance(args, list) else [])]
    argv = [expand_vars(str(w), os.environ) for w in words]
    cwd = raw.get("cwd")
    where = root / expand_vars(cwd, os.environ) if isinstance(cwd, str) and cwd else root
    return argv_runs(argv, root, where, raw.get("env"))


def hook_files(table: Any, root: Path) -> list[str]:
    return list(hook_runs(table, root).files)


def diagnostics_files(command: Any, root: Path) -> list[str]:
    return list(diagnostics_runs(command, root).files)


def server_files(raw: Any, root: Path) -> list[str]:
    return list(server_runs(raw, root).files)


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
