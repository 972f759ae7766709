"""Text files as the edit tools see them: encoding, BOM, line endings, state records, safe writes.

A file is decoded once into a :class:`TextFile` that remembers how to encode it back byte for
byte (BOM, UTF-8 / UTF-16 / Latin-1 fallback, CRLF or LF). The session's ``FileState`` holds
(mtime_ns, size, sha256) of what was last read or written, for read-before-edit and staleness.
"""

from __future__ import annotations

import codecs
import difflib
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from axon_cli.kernel.state import atomic_write
from axon_cli.tools.builtin.files.buffers import BUFFER_MTIME, buffer_fresh
from axon_cli.tools.spec import ToolContext, ToolError

__all__ = [
    "TextFile", "decode_bytes", "is_binary", "sha256_file", "record_state", "check_fresh",
    "write_text_file", "unified_diff", "diff_counts", "default_file_mode", "MAX_EDIT_BYTES",
    "BINARY_SNIFF", "UNREAD_EDITS",
]

MAX_EDIT_BYTES = 16 * 1024 * 1024
BINARY_SNIFF = 8192
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


@dataclass
class TextFile:
    """Decoded content plus everything needed to write it back in the same style."""

    text: str
    encoding: str = "utf-8"          # "utf-8", "utf-16-le", "utf-16-be" or "latin-1" (not UTF-8)
    bom: bytes = b""
    newline: str = "\n"              # "\n", "\r\n", or "" when mixed or no line break at all

    def encode(self, text: str) -> bytes:
        try:
            return self.bom + text.encode(self.encoding)
        except UnicodeEncodeError as e:
            raise ToolError(f"the file is {self.encoding}-encoded and the new text has a character it "
                            f"cannot hold ({text[e.start:e.end]!r})") from None

    def to_style(self, text: str) -> str:
        """``text`` with its line breaks converted to this file's style (if it has one)."""
        if not self.newline:
            return text
        lf = text.replace("\r\n", "\n")
        return lf.replace("\n", "\r\n") if self.newline == "\r\n" else lf


def is_binary(head: bytes) -> bool:
    """A NUL byte in the first bytes means binary, unless a UTF-16 BOM says it is text."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    return b"\0" in head[:BINARY_SNIFF]


def decode_bytes(data: bytes) -> TextFile:
    bom, encoding = b"", "utf-8"
    for mark, enc in _BOMS:
        if data.startswith(mark):
            bom, encoding = mark, enc
            break
    body = data[len(bom):]
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError:
        if encoding != "utf-8":
            raise ToolError(f"the file starts with a {encoding} BOM but is not valid {encoding}") from None
        text, encoding = body.decode("latin-1"), "latin-1"   # lossless: every byte maps to one char
    crlf, lf = text.count("\r\n"), text.count("\n")
    newline = "" if not lf or 0 < crlf < lf else ("\r\n" if crlf else "\n")
    return TextFile(text, encoding, bom, newline)


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def record_state(ctx: ToolContext, path: Path, sha256: str | None = None) -> None:
    """Remember the file as it is now on disk (after a read or a write)."""
    st = path.stat()
    digest = sha256 if sha256 is not None else (sha256_file(path) if st.st_size <= MAX_EDIT_BYTES else "")
    ctx.file_state.record(path, st.st_mtime_ns, st.st_size, digest)


UNREAD_EDITS = "unread_edits"    # ctx.extra: files an edit was refused for, not read yet


def check_fresh(ctx: ToolContext, path: Path, rel: str) -> None:
    """Read-before-edit and staleness: raise unless the file is as axon last read or wrote it."""
    rec = ctx.file_state.get(path)
    if rec is None:
        ctx.extra.setdefault(UNREAD_EDITS, set()).add(path)     # read_file then says: now make it again
        raise ToolError(f"{rel} has not been read in this session: read it first with read_file, then make "
                        "this change again (nothing was changed yet)")
    if rec.mtime_ns == BUFFER_MTIME:            # read through the editor: compare the text itself
        buffer_fresh(ctx, path, rel, rec.sha256)
        return
    st = path.stat()
    if st.st_mtime_ns == rec.mtime_ns and st.st_size == rec.size:
        return
    stale = ToolError(f"{rel} was modified since your last read: read it again with read_file "
                      "before changing it")
    if st.st_size != rec.size or not rec.sha256:
        raise stale
    if sha256_file(path) != rec.sha256:
        raise stale
    ctx.file_state.record(path, st.st_mtime_ns, st.st_size, rec.sha256)   # touched, same bytes


_UMASK: int | None = None


def default_file_mode() -> int:
    """The mode a new file gets (0o666 minus the umask), as ``open()`` would create it."""
    global _UMASK
    if _UMASK is None:
        current = os.umask(0o022)
        os.umask(current)
        _UMASK = current
    return 0o666 & ~_UMASK


def write_text_file(ctx: ToolContext, path: Path, data: bytes) -> None:
    """Atomic write keeping the mode of a replaced file; records the new state."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = default_file_mode()
    try:
        atomic_write(path, data, mode=mode)
    except OSError as e:
        raise ToolError(f"could not write {ctx.relative(path)}: {e.strerror or e}") from None
    record_state(ctx, path, hashlib.sha256(data).hexdigest())


def unified_diff(old: str, new: str, rel: str, max_lines: int = 200) -> str:
    """A unified diff (3 lines of context) of two texts, line breaks normalized, capped."""
    a, b = _diff_lines(old), _diff_lines(new)
    lines = list(difflib.unified_diff(a, b, f"a/{rel}", f"b/{rel}", lineterm="", n=3))
    if not lines and old != new:
        return f"(only line endings or the final newline of {rel} changed)"
    if len(lines) > max_lines:
        lines = lines[:max_lines] + [f"[… {len(lines) - max_lines} more diff lines]"]
    return "\n".join(lines)


def _diff_lines(text: str) -> list[str]:
    parts = text.replace("\r\n", "\n").split("\n")
    return parts[:-1] if parts[-1] == "" else parts


def diff_counts(diff: str) -> tuple[int, int]:
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed
