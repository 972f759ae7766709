"""Rendered ``--help`` kept per command and per rendering conditions, so a repeated ``axon --help``
needs neither typer nor rich: a self-validating cache, regenerated on any miss.

A kept rendering is printed only when everything it depended on is as it was:
- the arguments, axon's version, the Python executable and version, ``-O``, the program name;
- every source file loaded while typer rendered it (``axon_cli/app/entry/cli.py`` and all it imports, typer,
  click, rich, …): path, size, modification time — so a change to ``cli.py`` (a new command, a new
  flag, from any branch) or an upgrade is a miss, with no step to remember;
- the environment variables those files read (names found in their source when rendering:
  ``COLUMNS``, ``TERM``, ``NO_COLOR``, ``FORCE_COLOR``, ``TERMINAL_WIDTH``, …);
- which of stdin/stdout/stderr are terminals, their sizes, stdout's encoding.
On a miss typer renders as always; its output (exit code 0, nothing on stderr) is kept in
``$XDG_CACHE_HOME/axon/help/`` (written atomically; up to ``VARIANTS`` renderings per command).
"""

from __future__ import annotations

import contextlib
import io
import marshal
import os
import sys
import zlib
from collections.abc import Callable
from typing import Any

from axon_cli.kernel.version import __version__

__all__ = ["is_help_request", "serve", "render_and_keep", "cache_dir", "BASE_ENV", "VARIANTS"]

VARIANTS = 8
MAX_FILES = 64
BASE_ENV = ("COLUMNS", "LINES", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "PY_COLORS", "CLICOLOR",
            "CLICOLOR_FORCE", "TERMINAL_WIDTH", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "GITHUB_ACTIONS",
            "JUPYTER_COLUMNS", "JUPYTER_LINES", "LANG", "LC_ALL", "LC_CTYPE", "PYTHONIOENCODING",
            "PYTHONUTF8", "TYPER_USE_RICH", "_TYPER_FORCE_DISABLE_TERMINAL", "_TYPER_STANDARD_TRACEBACK")


def is_help_request(argv: list[str]) -> bool:
    """``axon``, ``axon --help``, ``axon run -h``, ``axon permissions check --help``: words, then
    the help flag (shell completion, which typer drives through ``_AXON_COMPLETE``, is not)."""
    if any(name.endswith("_COMPLETE") for name in os.environ):
        return False
    if not argv:
        return True
    *path, flag = argv
    return flag in ("--help", "-h") and len(path) <= 3 and all(p[:1].isalpha() for p in path)


def cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "axon", "help")


def _static_key(argv: list[str]) -> tuple[Any, ...]:
    main = sys.modules.get("__main__")
    return (__version__, sys.executable, sys.version, sys.flags.optimize, os.path.basename(sys.argv[0]),
            getattr(main, "__package__", None), tuple(argv))


def _entry_path(key: tuple[Any, ...]) -> str:
    return os.path.join(cache_dir(), f"{zlib.crc32(repr(key).encode()):08x}.bin")


def _terminal() -> tuple[Any, ...]:
    info: list[Any] = []
    for fd in (0, 1, 2):
        try:
            info.append((os.isatty(fd), tuple(os.get_terminal_size(fd))))
        except OSError:
            info.append((False, None))
    return (*info, getattr(sys.stdout, "encoding", None), getattr(sys.stdout, "errors", None))


def _files_unchanged(files: tuple[tuple[str, int, int], ...]) -> bool:
    try:
        for path, size, mtime in files:
            st = os.stat(path)
            if st.st_size != size or st.st_mtime_ns != mtime:
                return False
    except OSError:
        return False
    return True


def _load(path: str) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as fh:
            data = marshal.loads(fh.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return data if isinstance(data, dict) else None


def serve(argv: list[str]) -> bool:
    """Print the kept rendering for ``argv`` if it is still exact; whether it did."""
    key = _static_key(argv)
    entry = _load(_entry_path(key))
    if entry is None or entry.get("key") != key:
        return False
    term = _terminal()
    for variant in entry.get("variants", []):
        if (variant["term"] == term and tuple(os.environ.get(n) for n in variant["env"]) == variant["values"]
                and _files_unchanged(variant["files"])):
            out = sys.stdout.buffer
            out.write(variant["out"])
            out.flush()
            return True
    return False


class _Tee(io.RawIOBase):
    """A file descriptor's writes, also kept in memory (the real stream stays what rich sees)."""

    def __init__(self, fd: int) -> None:
        self.fd, self.data = fd, bytearray()

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return os.isatty(self.fd)

    def write(self, b: Any) -> int:
        n = os.write(self.fd, b)
        self.data += bytes(b[:n])
        return n


def _teed(stream: Any, fd: int) -> tuple[io.TextIOWrapper, _Tee]:
    raw = _Tee(fd)
    wrapper = io.TextIOWrapper(io.BufferedWriter(raw), encoding=stream.encoding, errors=stream.errors,
                               line_buffering=stream.line_buffering)
    return wrapper, raw


def render_and_keep(argv: list[str], run: Callable[[], None]) -> None:
    """Let typer render the help (``run``), then keep what it printed if it may be reused."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        old_out, old_err = sys.stdout, sys.stderr
        (sys.stdout, out), (sys.stderr, err) = _teed(old_out, 1), _teed(old_err, 2)
    except (AttributeError, OSError, ValueError):   # no real stdout/stderr: just render
        run()
        return
    code: Any = 0
    try:
        run()
    except SystemExit as e:
        code = e.code
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                code = code or 1
        sys.stdout, sys.stderr = old_out, old_err
    if code in (0, None) and not err.data and out.data:
        with contextlib.suppress(OSError):
            _keep(argv, bytes(out.data))
    if code not in (0, None):
        raise SystemExit(code)


def _source_files() -> list[str]:
    stdlib = os.path.dirname(os.__file__)
    files = set()
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not path or not os.path.isfile(path):
            continue
        if path.startswith(stdlib) and "site-packages" not in path[len(stdlib):]:
            continue
        files.add(path)
    return sorted(files)


def _env_names(files: list[str]) -> tuple[str, ...]:
    import re

    read = re.compile(r"""(?:environ(?:\.get)?|getenv)\s*[(\[]\s*["']([A-Za-z_][A-Za-z0-9_]*)["']"""
                      r"""|["']([A-Z_][A-Z0-9_]*)["']\s+(?:not\s+)?in\s+(?:os\.|self\._)?environ""")
    names = set(BASE_ENV)
    for path in files:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        if "environ" in text or "getenv" in text:
            names.update(a or b for a, b in read.findall(text))
    return tuple(sorted(names))


def _keep(argv: list[str], output: bytes) -> None:
    from pathlib import Path

    from axon_cli.kernel.state import atomic_write

    files = _source_files()
    env = _env_names(files)
    stats = []
    for path in files:
        st = os.stat(path)
        stats.append((path, st.st_size, st.st_mtime_ns))
    variant = {"term": _terminal(), "env": env, "values": tuple(os.environ.get(n) for n in env),
               "files": tuple(stats), "out": output}
    key = _static_key(argv)
    path = _entry_path(key)
    entry = _load(path)
    old = entry.get("variants", []) if entry and entry.get("key") == key else []
    same = [v for v in old if (v["term"], v["env"], v["values"]) != (variant["term"], env, variant["values"])]
    atomic_write(Path(path), marshal.dumps({"key": key, "variants": [variant, *same][:VARIANTS]}), mode=0o600)
    _prune(os.path.dirname(path))


def _prune(directory: str) -> None:
    try:
        names = [os.path.join(directory, n) for n in os.listdir(directory) if n.endswith(".bin")]
        if len(names) > MAX_FILES:
            for name in sorted(names, key=os.path.getmtime)[:len(names) - MAX_FILES]:
                os.unlink(name)
    except OSError:
        pass
