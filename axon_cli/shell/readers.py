"""Commands that only read when used a certain way, decided exactly from their arguments.

- ``sed`` without ``-i``/``--in-place``/``-f``, whose script has no ``w``/``W``/``e``/``r``/``R``
  command and no ``w``/``e`` flag of ``s`` (the script is scanned the way GNU sed reads it; anything
  the scanner does not know makes the command not read-only).
- ``awk`` (gawk, mawk, nawk) with a program that has no ``system``, ``|``, ``>``, ``getline <`` or
  ``@`` directive, and no option that loads code or writes a file.
- ``less``/``more`` with at least one file and only display options (no ``+command``, no log file).
- ``PROGRAM --version`` / ``PROGRAM --help`` for a known program: read-only here; the policy also
  requires PROGRAM to be found on PATH outside the project (``version_query``).
- ``basename``/``dirname``/``realpath`` read no file: their arguments are not paths to check.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from axon_cli.shell.sed import sed_effect

__all__ = ["reader_read_only", "version_query", "script_words", "sed_effect", "awk_program_safe", "NO_FILE_ARGS",
           "KNOWN_PROGRAMS"]

NO_FILE_ARGS = frozenset({"basename", "dirname", "realpath"})
KNOWN_PROGRAMS = frozenset({
    "python", "python3", "pip", "pip3", "node", "npm", "yarn", "pnpm", "deno", "bun", "git", "go", "cargo",
    "rustc", "rustup", "gcc", "g++", "cc", "clang", "clang++", "make", "cmake", "ninja", "java", "javac",
    "ruby", "gem", "perl", "php", "lua", "bash", "zsh", "jq", "rg", "fd", "gh", "docker", "podman",
    "kubectl", "helm", "terraform", "uv", "ruff", "black", "dotnet", "swift", "zig", "bazel", "tsc",
})
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
_AWK_SAFE_OPTS = frozenset({"--posix", "--traditional", "--compat", "--lint", "-P", "-b", "-c", "-O", "-N",
                            "--characters-as-bytes", "--optimize", "--use-lc-numeric"})
_AWK_BAD = re.compile(r"system|[|>@]|getline[^;{}\n]*<")
_LESS_LETTERS = frozenset("FRSNXiIrnsMmEeqQwWJ~cCaBfGgLuU")
_MORE_LETTERS = frozenset("dlfpcsu0123456789")


def version_query(argv: list[str]) -> bool:
    """``PROGRAM --version`` or ``PROGRAM --help`` for a known program (a bare name)."""
    return len(argv) == 2 and argv[1] in ("--version", "--help") and argv[0] in KNOWN_PROGRAMS


def reader_read_only(name: str, args: list[str]) -> bool | None:
    """Whether this use of a sometimes-reading command only reads; None for other commands."""
    if name == "sed":
        return _sed(args)
    if name in _AWKS:
        return _awk(args)
    if name in ("less", "more"):
        return _pager(args, _LESS_LETTERS if name == "less" else _MORE_LETTERS)
    if version_query([name, *args]):
        return True
    return None


def _leading_options(args: list[str], takes_value: Callable[[str], bool]) -> tuple[list[tuple[int, str]], int]:
    """The options before the first operand, as (index, word), and that operand's index (``len(args)``
    when there is none). ``takes_value(word)``: the next word is the option's value."""
    options: list[tuple[int, str]] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return options, i + 1
        if not a.startswith("-") or a == "-":
            break
        options.append((i, a))
        i += 2 if takes_value(a) else 1
    return options, i


def _sed(args: list[str]) -> bool:
    return sed_effect(args) is None


def _sed_takes(a: str) -> bool:
    return "=" not in a and (a in ("--expression", "--line-length") or (not a.startswith("--") and a[-1] in "el"))


def _awk_takes(a: str) -> bool:
    return a in ("-F", "-v", "--field-separator", "--assign")


def script_words(name: str, args: list[str]) -> set[int]:
    """Indexes in ``args`` of a sed script / awk program and of sed's option values (not paths)."""
    if name in _AWKS:
        program, _safe = _awk_program(args)
        return {program} if program is not None else set()
    if name != "sed":
        return set()
    options, first = _leading_options(args, _sed_takes)
    out = {i + 1 for i, a in options if _sed_takes(a)}
    from_option = any(a.split("=", 1)[0] in ("--expression", "--file") or (not a.startswith("--") and a[-1] in "ef")
                      for _i, a in options)
    if not from_option and first < len(args):
        out.add(first)
    return out


# -- awk and pagers ------------------------------------------------------------------------------------
def _awk_program(args: list[str]) -> tuple[int | None, bool]:
    """The index of the program operand (None: none, or it comes from ``-f``/``-e``) and whether every
    option is harmless (not loading code, not writing files)."""
    options, first = _leading_options(args, _awk_takes)
    safe = True
    for _i, a in options:
        if not (_awk_takes(a) or a.startswith(("-F", "-v", "--field-separator=", "--assign=")) or a in _AWK_SAFE_OPTS):
            safe = False                      # -f/-e/-i/-l/-E load code, -o/-p/-d write files, unknown
            if a.split("=", 1)[0] in ("-f", "--file", "-e", "--source", "-E", "--exec"):
                return None, False
    return (first if first < len(args) else None), safe


def awk_program_safe(args: list[str]) -> bool:
    """Whether this awk invocation's program is given inline and neither writes nor runs anything."""
    return _awk(args)


def _awk(args: list[str]) -> bool:
    program, safe = _awk_program(args)
    return safe and program is not None and not _AWK_BAD.search(args[program])


def _pager(args: list[str], letters: frozenset[str]) -> bool:
    files = 0
    options = True
    for a in args:
        if options and a == "--":
            options = False
        elif options and a.startswith("+"):
            return False                      # +cmd runs a pager command (less: even a shell escape)
        elif options and a.startswith("-") and len(a) > 1:
            if a.startswith("--") or not set(a[1:]) <= letters:
                return False
        else:
            files += 1
    return files > 0
