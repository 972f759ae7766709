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

__all__ = ["reader_read_only", "version_query", "script_words", "NO_FILE_ARGS", "KNOWN_PROGRAMS"]

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


# -- sed ---------------------------------------------------------------------------------------------
_SED_SAFE_LONG = frozenset({"--quiet", "--silent", "--regexp-extended", "--separate", "--unbuffered",
                            "--null-data", "--posix", "--debug", "--sandbox", "--binary", "-s"})


def _sed(args: list[str]) -> bool:
    scripts: list[str] = []
    operands: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            operands += args[i + 1:]
            break
        if a.startswith("--"):
            opt, eq, value = a.partition("=")
            if opt == "--expression":
                if not eq:
                    i += 1
                    value = args[i] if i < len(args) else ""
                scripts.append(value)
            elif opt == "--line-length":
                i += 0 if eq else 1
            elif opt not in _SED_SAFE_LONG:
                return False                  # --in-place, --file, --follow-symlinks, unknown
        elif a.startswith("-") and len(a) > 1:
            j = 1
            while j < len(a):
                c = a[j]
                if c in "nrEsuzb":
                    j += 1
                    continue
                if c in "el":
                    value = a[j + 1:]
                    if not value:
                        i += 1
                        value = args[i] if i < len(args) else ""
                    if c == "e":
                        scripts.append(value)
                    break
                return False                  # -i (in place), -f (script file), unknown letters
        else:
            operands.append(a)
        i += 1
    if not scripts:
        if not operands:
            return False
        scripts.append(operands[0])
    return all(_sed_script_safe(s) for s in scripts)


def _skip_regex(s: str, pos: int, delim: str) -> int:
    """Index just past the unescaped ``delim`` closing a regex/replacement starting at ``pos``; -1 if none."""
    while pos < len(s):
        c = s[pos]
        if c == "\\":
            pos += 2
            continue
        if c == delim:
            return pos + 1
        if c == "\n":
            return -1
        pos += 1
    return -1


def _sed_address(s: str, pos: int) -> int:
    """Past one address (number, ``$``, ``/re/``, ``\\cREc``, ``first~step``), or ``pos`` if none; -1 on error."""
    if pos < len(s) and s[pos].isdigit():
        while pos < len(s) and (s[pos].isdigit() or s[pos] == "~"):
            pos += 1
        return pos
    if pos < len(s) and s[pos] == "$":
        return pos + 1
    if pos < len(s) and s[pos] in "/\\":
        delim = "/"
        if s[pos] == "\\":
            if pos + 1 >= len(s):
                return -1
            delim, pos = s[pos + 1], pos + 1
        pos = _skip_regex(s, pos + 1, delim)
        while pos != -1 and pos < len(s) and s[pos] in "IM":
            pos += 1
        return pos
    return pos


def _sed_script_safe(s: str) -> bool:
    pos, n = 0, len(s)
    while pos < n:
        while pos < n and s[pos] in " \t\n;":
            pos += 1
        if pos >= n:
            return True
        if s[pos] == "#":
            while pos < n and s[pos] != "\n":
                pos += 1
            continue
        pos = _sed_address(s, pos)
        if pos != -1 and pos < n and s[pos] == ",":
            pos += 1
            if pos < n and s[pos] in "+~":
                pos += 1
            pos = _sed_address(s, pos)
        if pos == -1:
            return False
        while pos < n and s[pos] in " \t!":
            pos += 1
        if pos >= n:
            return False
        pos = _sed_command(s, pos)
        if pos == -1:
            return False
    return True


def _to_end_of_line(s: str, pos: int, stop: str = "\n") -> int:
    while pos < len(s) and s[pos] not in stop:
        pos += 2 if s[pos] == "\\" else 1
    return pos


def _sed_command(s: str, pos: int) -> int:
    """Past one command and its arguments; -1 when it writes, executes, reads a file or is unknown."""
    c, pos = s[pos], pos + 1
    if c == "{":
        return pos
    if c in "}=dDgGhHnNpPxzF":
        pass
    elif c in "aic":
        return _to_end_of_line(s, pos)
    elif c in ":btTv":
        return _to_end_of_line(s, pos, "\n;")
    elif c in "lLqQ":
        while pos < len(s) and (s[pos].isdigit() or s[pos] in " \t"):
            pos += 1
    elif c in "sy":
        if pos >= len(s) or s[pos] in "\n\\":
            return -1
        delim = s[pos]
        pos = _skip_regex(s, pos + 1, delim)
        pos = _skip_regex(s, pos, delim) if pos != -1 else -1
        if pos == -1:
            return -1
        while c == "s" and pos < len(s) and (s[pos] in "gpiImM" or s[pos].isdigit()):
            pos += 1
    else:
        return -1                             # e, r, R, w, W and anything unknown
    while pos < len(s) and s[pos] in " \t":
        pos += 1
    return pos if pos >= len(s) or s[pos] in ";\n}#" else -1


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
