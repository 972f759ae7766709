"""How each interpreter reads its command line: which word is the script it runs, and which flags
axon knows. A flag it does not know means "cannot tell" (it may take the next word, so the script
would be a different word): the caller then pins nothing and says why.

``script_of(name, args)`` answers with a ``Script`` (the script word, or a module / inline code /
standard input) or a ``CannotTell`` reason. Each interpreter has its own ``Flags`` table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Flags", "Script", "CannotTell", "TABLES", "SHELLS", "interpreter_table", "script_of", "closed_python"]

SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish"}
_PYTHON = re.compile(r"^(python|pypy)(\d+(\.\d+)?)?$")


@dataclass(frozen=True)
class Flags:
    alone: frozenset[str]                    # flags without a value (-I, --no-warnings)
    valued: frozenset[str] = frozenset()     # flags whose value is the next word (or attached)
    inline: frozenset[str] = frozenset()     # the value is code, not a file (-c, -e)
    files: frozenset[str] = frozenset()      # the value is a file it runs first (node -r ./x.js)
    script: frozenset[str] = frozenset()     # the value is the script itself (php -f x.php)
    module: frozenset[str] = frozenset()     # python -m: the value is a module
    letters: bool = True                     # single-letter flags combine (-IB, -eux)
    stdin: frozenset[str] = frozenset({"-"})   # reads its program from standard input


@dataclass(frozen=True)
class Script:
    kind: str                    # file | module | inline | stdin
    word: str = ""
    before: tuple[str, ...] = field(default_factory=tuple)   # files it runs first (node -r)


@dataclass(frozen=True)
class CannotTell:
    reason: str


def _f(*words: str) -> frozenset[str]:
    return frozenset(words)


PYTHON = Flags(_f("-b", "-bb", "-B", "-d", "-E", "-i", "-I", "-O", "-OO", "-P", "-q", "-s", "-S", "-u", "-v",
                  "-vv", "-x", "-R", "-h", "--help", "-V", "--version"),
               valued=_f("-W", "-X", "--check-hash-based-pycs"), inline=_f("-c"), module=_f("-m"))
NODE = Flags(_f("--no-warnings", "--trace-warnings", "--enable-source-maps", "--no-deprecation",
                "--throw-deprecation", "--trace-deprecation", "--pending-deprecation", "--use-strict",
                "--abort-on-uncaught-exception", "--preserve-symlinks", "--preserve-symlinks-main",
                "--experimental-vm-modules", "--trace-uncaught", "--no-experimental-fetch", "--jitless",
                "--max-old-space-size", "--stack-size", "-v", "--version", "-h", "--help"),
             valued=_f("--title", "--input-type", "--disable-warning", "--unhandled-rejections", "-C",
                       "--conditions"),
             inline=_f("-e", "--eval", "-p", "--print"),
             files=_f("-r", "--require", "--import", "--loader", "--experimental-loader"), letters=False)
RUBY = Flags(_f("-w", "-W", "-W0", "-W1", "-W2", "-v", "-d", "--disable-gems", "-U", "--verbose",
                "--version", "-h", "--help"), valued=_f("-E", "--encoding"), inline=_f("-e"), letters=False)
PERL = Flags(_f("-w", "-W", "-X", "-T", "-t", "-l", "-n", "-p", "-a", "-s", "-v", "-h"), inline=_f("-e", "-E"))
PHP = Flags(_f("-n", "-q", "-H", "-e", "-v", "-h"), valued=_f("-d"), inline=_f("-r"), script=_f("-f"),
            letters=False)
LUA = Flags(_f("-v", "-E", "-W", "-i"), inline=_f("-e"), letters=False)
RSCRIPT = Flags(_f("--vanilla", "--no-save", "--no-restore", "--no-environ", "--no-site-file",
                   "--no-init-file", "--quiet", "--slave", "--silent", "--verbose", "--version"),
                inline=_f("-e"), letters=False)
SHELL = Flags(_f("-e", "-u", "-x", "-v", "-n", "-f", "-a", "-h", "-m", "-p", "-B", "-C", "-E", "-T", "-l",
                 "--login", "--norc", "--noprofile", "--posix", "-r", "--restricted", "+e", "+u", "+x"),
              valued=_f("-o", "+o"), inline=_f("-c"), stdin=_f("-", "-s", "-i"))
BARE = Flags(frozenset(), letters=False)      # tsx, ts-node, source, `.`: no flag is known

TABLES: dict[str, Flags] = {"node": NODE, "nodejs": NODE, "ruby": RUBY, "perl": PERL, "php": PHP, "lua": LUA,
                            "Rscript": RSCRIPT, "tsx": BARE, "ts-node": BARE, "source": BARE, ".": BARE}


def interpreter_table(name: str) -> Flags | None:
    if name in SHELLS:
        return SHELL
    if _PYTHON.match(name):
        return PYTHON
    return TABLES.get(name)


def _path_like(word: str) -> bool:
    return word.startswith(("./", "../", "/")) or "/" in word or bool(re.search(r"\.[cm]?[jt]s$", word))


def script_of(name: str, args: list[str]) -> Script | CannotTell:
    """The script ``name`` (an interpreter with a table) runs given ``args``."""
    table = interpreter_table(name)
    if table is None:
        return CannotTell(f"{name} is not an interpreter axon knows")
    before: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            return Script("file", args[i + 1], tuple(before)) if i + 1 < len(args) else Script("stdin")
        if word in table.stdin:
            return Script("stdin")
        if not word.startswith(("-", "+")) or word in ("-", "+"):
            return Script("file", word, tuple(before))
        flag, value, used = _split(word, args[i + 1] if i + 1 < len(args) else None, table)
        if flag is None:
            return CannotTell(f"{name} flag {word} is not one axon knows (it may change which file runs)")
        if flag in table.inline or flag in table.module:
            if value is None:
                return CannotTell(f"{name} {flag} without a value")
            return Script("inline" if flag in table.inline else "module", value, tuple(before))
        if flag in table.script:
            return Script("file", value or "", tuple(before)) if value else CannotTell(f"{name} {flag} without a file")
        if flag in table.files:
            if not value or not _path_like(value):
                return CannotTell(f"{name} {flag} {value or ''} loads a module it looks up itself".rstrip())
            before.append(value)
        i += 1 + used
    return Script("stdin")


def _split(word: str, following: str | None, table: Flags) -> tuple[str | None, str | None, int]:
    """(flag, its value, how many following words it used); flag None: unknown."""
    if "=" in word and word.startswith("--"):
        name, value = word.split("=", 1)
        if name in table.valued | table.inline | table.files | table.script | table.alone:
            return name, value, 0
        return None, None, 0
    if word in table.alone:
        return word, None, 0
    if word in table.valued | table.inline | table.files | table.script | table.module:
        return word, following, 1 if following is not None else 0
    if not table.letters or word.startswith("--"):
        for flag in table.valued | table.inline | table.files | table.script:      # -Wignore, -rfoo
            if len(flag) == 2 and word.startswith(flag) and len(word) > 2:
                return flag, word[2:], 0
        return None, None, 0
    sign = word[0]
    for j, letter in enumerate(word[1:], start=1):
        flag = sign + letter
        if flag in table.alone:
            continue
        if flag in table.valued | table.inline | table.files | table.script | table.module:
            rest = word[j + 1:]
            if rest:
                return flag, rest, 0
            return flag, following, 1 if following is not None else 0
        return None, None, 0
    return word, None, 0


# Modules no project file can shadow: built into the interpreter, or imported before ``-c`` code runs.
_STARTUP = frozenset({"os", "io", "abc", "codecs", "stat", "posixpath"})
_RUNS_CODE = re.compile(r"^(exec|eval|compile|open|__import__|getattr|setattr|globals|locals|vars|breakpoint|help|"
                        r"__builtins__|__loader__|__spec__|system|popen|fork|forkpty|spawn.*|exec.*|posix_spawn.*|"
                        r"import_module|load_module|run_path|run_module|startfile)$")


def closed_python(code: str) -> bool:
    """Whether ``python -c CODE`` can run no project file: it parses, imports only modules a file in the
    working folder cannot shadow, and names nothing that runs or loads other code."""
    import ast
    import sys

    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    safe = _STARTUP | set(sys.builtin_module_names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name not in safe for a in node.names):
            return False
        if isinstance(node, ast.ImportFrom) and (node.level or node.module not in safe):
            return False
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
        if name and _RUNS_CODE.match(name):
            return False
    return True
