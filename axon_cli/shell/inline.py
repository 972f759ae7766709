"""Inline code given to an interpreter (``python -c``, ``perl -e``, ``node -e``, awk and sed programs):
whether the analysis can show it neither touches files nor runs programs.

An allowlist: ``python -c`` code is transparent when it imports only harmless modules (json, sys, re,
math, …) and names nothing that reaches files, programs or the interpreter's internals (os, open,
exec, getattr, dunder names, …); ``perl -e`` code when it is only ``s///``/``tr///`` substitutions with
no code in them. Everything else is opaque.
"""

from __future__ import annotations

import re

from axon_cli.shell.readers import awk_program_safe, sed_effect

__all__ = ["inline_opaque", "python_code_opaque", "PYTHON_SAFE_MODULES"]

PYTHON_SAFE_MODULES = frozenset({
    "json", "sys", "re", "math", "cmath", "base64", "binascii", "hashlib", "hmac", "datetime", "time", "calendar",
    "collections", "itertools", "functools", "operator", "textwrap", "string", "statistics", "decimal",
    "fractions", "random", "pprint", "unicodedata", "struct", "zlib", "bisect", "heapq", "enum", "dataclasses",
    "typing", "html", "difflib", "colorsys", "keyword", "numbers", "copy",
})
_PYTHON_BAD_NAMES = frozenset({
    "os", "shutil", "subprocess", "pathlib", "open", "exec", "eval", "compile", "__import__", "getattr", "setattr",
    "delattr", "importlib", "globals", "locals", "vars", "builtins", "ctypes", "modules", "breakpoint", "help",
    "input", "memoryview", "posix", "io", "tempfile", "socket", "pickle", "marshal", "codecs", "glob", "signal",
    "_io", "_posixsubprocess", "_thread", "threading", "multiprocessing", "platform", "webbrowser", "pty",
    "fcntl", "mmap", "sqlite3", "dbm", "shelve", "zipfile", "tarfile", "gzip", "bz2", "lzma", "urllib", "http",
    "ftplib", "smtplib", "ssl", "asyncio", "runpy", "code", "pdb", "pydoc", "inspect", "gc", "atexit",
    "setrecursionlimit", "settrace", "setprofile", "addaudithook", "stdlib_module_names", "path_hooks",
    "meta_path", "path_importer_cache", "_getframe", "f_globals", "f_locals", "f_builtins", "gi_frame",
    "tb_frame", "cr_frame", "format_map",
})
_INTERPRETER_CODE_OPTS = {
    "perl": ("-e", "-E"), "ruby": ("-e",), "node": ("-e", "--eval", "-p", "--print"), "nodejs": ("-e", "--eval"),
    "php": ("-r",), "deno": ("eval",), "bun": ("-e", "--eval"), "lua": ("-e",), "Rscript": ("-e",),
    "julia": ("-e",), "osascript": ("-e",), "tclsh": (), "pwsh": ("-c", "-Command"),
}
_PERL_SUBST = re.compile(r"""\s*(?:(?:s|tr|y)([/|#!,:])(?:\\.|(?!\1).)*\1(?:\\.|(?!\1).)*\1[gimsxrcdu]*\s*;?\s*)+""")


def python_code_opaque(code: str) -> str | None:
    """Why this ``python -c`` code may touch files or run programs; None when it cannot."""
    import ast
    import warnings

    try:
        with warnings.catch_warnings():       # "invalid escape sequence" and the like: never printed
            warnings.simplefilter("ignore")
            tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "python -c code that cannot be read"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bad = next((a.name for a in node.names if a.name not in PYTHON_SAFE_MODULES), None)
        elif isinstance(node, ast.ImportFrom):
            bad = None if node.level == 0 and node.module in PYTHON_SAFE_MODULES else (node.module or ".")
        else:
            name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
            if name and _bad_python_name(name):
                return f"python -c code that can touch files or run programs ({name})"
            continue
        if bad is not None:
            return f"python -c code that imports {bad}"
    return None


def _bad_python_name(name: str) -> bool:
    return name in _PYTHON_BAD_NAMES or name.startswith(("_", "f_", "gi_", "tb_", "cr_", "ag_")) or name == "path"


def _perl_opaque(code: str) -> str | None:
    """Only ``s///``/``tr///``/``y///`` with no ``e`` flag and no code interpolated: transparent."""
    if not _PERL_SUBST.fullmatch(code) or re.search(r"[$@]\{|\(\?\??\{|`", code):
        return "perl code that can touch files or run programs"
    return None


def _code_after(args: list[str], opts: tuple[str, ...]) -> list[str] | None:
    """The inline code words given with one of ``opts`` (``-e CODE``, ``-eCODE``, ``--eval=CODE``)."""
    out: list[str] = []
    for i, a in enumerate(args):
        for opt in opts:
            if a == opt:
                out.append(args[i + 1] if i + 1 < len(args) else "")
            elif a.startswith(opt + "=") and opt.startswith("--"):
                out.append(a.split("=", 1)[1])
            elif len(opt) == 2 and a.startswith("-") and not a.startswith("--") and opt[1] in a[1:] and opt != "-p":
                at = a.index(opt[1], 1)
                out.append(a[at + 1:] or (args[i + 1] if i + 1 < len(args) else ""))
    return out or None


def inline_opaque(name: str, args: list[str]) -> str | None:
    """Why the inline program of this interpreter/awk/sed invocation is opaque; None when there is
    none or it is shown harmless."""
    if name.startswith("python") and re.fullmatch(r"python[0-9.]*", name):
        codes = _code_after(args[:_python_stop(args)], ("-c",))
        if codes is None:
            return None
        return next((why for why in map(python_code_opaque, codes) if why), None)
    if name in ("perl", "ruby") and any(a[:1] == "-" and a[1:2] != "-" and "x" in a[1:] for a in args):
        return f"{name} -x runs a script embedded in a file"
    if name in _INTERPRETER_CODE_OPTS:
        codes = _code_after(args, _INTERPRETER_CODE_OPTS[name])
        if codes is None:
            return None
        if name == "perl":
            return next((why for why in map(_perl_opaque, codes) if why), None)
        return f"{name} inline code that can touch files or run programs"
    if name in ("awk", "gawk", "mawk", "nawk"):
        return None if awk_program_safe(args) else f"{name} program that can write files or run programs"
    if name == "sed":
        effect = sed_effect(args)
        return f"sed script that {effect}" if effect in ("writes files", "runs programs", "cannot be read") else None
    return None


def _python_stop(args: list[str]) -> int:
    """Python's own options end at the first operand (a script) or ``-c``/``-m`` and its value."""
    for i, a in enumerate(args):
        if not a.startswith("-") or a == "-":
            return i
        if a in ("-m",) or (a.startswith("-") and not a.startswith("--") and "m" in a[1:] and "c" not in a[1:]):
            return i
        if a == "-c" or (not a.startswith("--") and "c" in a[1:]):
            return min(i + 2, len(args))
    return len(args)
