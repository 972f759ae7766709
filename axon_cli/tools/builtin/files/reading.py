"""read_file's engine: stream a file's lines (bounded memory), number them, cut long ones; a picture
goes to the model as an image (``read_image``)."""

from __future__ import annotations

import codecs
import difflib
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from axon_cli.machinery.media.imaging import ImageError, is_image_file, load_image, sniff
from axon_cli.tools.builtin.files.buffers import record_buffer
from axon_cli.tools.builtin.files.fileio import BINARY_SNIFF, is_binary, record_state
from axon_cli.tools.spec import ToolContext, ToolError, ToolOutput

__all__ = ["read_numbered", "read_image", "ReadResult", "missing_file_message", "MAX_LINE_CHARS"]

MAX_LINE_CHARS = 2000
MAX_OUTPUT_CHARS = 80_000
_LINE_BYTES = MAX_LINE_CHARS * 4 + 4          # enough bytes for MAX_LINE_CHARS UTF-8 characters


@dataclass
class ReadResult:
    text: str
    shown: int          # lines shown
    first: int          # number of the first line shown
    notes: list[str]


def _raw_lines(fh: BinaryIO) -> Iterator[tuple[bytes, bool]]:
    """Lines (without the newline) of at most ``_LINE_BYTES`` bytes, and whether each was cut.
    A longer line is skipped over in chunks, never held whole."""
    while True:
        chunk = fh.readline(_LINE_BYTES)
        if not chunk:
            return
        if chunk.endswith(b"\n"):
            yield chunk[:-1].rstrip(b"\r"), False
            continue
        cut = False
        while True:       # the rest of an over-long line, or the last line without a newline
            more = fh.readline(1 << 16)
            if not more:
                break
            cut = True
            if more.endswith(b"\n"):
                break
        yield chunk.rstrip(b"\r"), cut


def _utf16_lines(fh: BinaryIO, encoding: str) -> Iterator[tuple[bytes, bool]]:
    wrapper = io.TextIOWrapper(fh, encoding=encoding, errors="replace", newline=None)
    for line in wrapper:
        yield line.rstrip("\n").encode("utf-8"), False


def read_numbered(ctx: ToolContext, path: Path, offset: int, limit: int, buffer: str | None = None) -> ReadResult:
    """Lines ``offset``.. (1-based) of ``path``, at most ``limit``, as ``cat -n`` would show them;
    with ``buffer``, of that text (the editor's, ``buffers.py``) instead of the file on disk."""
    rel = ctx.relative(path)
    data = buffer.encode("utf-8", "surrogatepass") if buffer is not None else None
    size = len(data) if data is not None else path.stat().st_size
    notes: list[str] = []

    def remember() -> None:
        if buffer is not None:
            record_buffer(ctx, path, buffer)
        else:
            record_state(ctx, path)

    with (io.BytesIO(data) if data is not None else path.open("rb")) as fh:
        head = fh.read(BINARY_SNIFF)
        if is_binary(head):
            remember()
            return ReadResult(f"binary file, {size} bytes", 0, 0, [])
        fh.seek(0)
        lines: Iterator[tuple[bytes, bool]]
        if head.startswith(codecs.BOM_UTF16_LE) or head.startswith(codecs.BOM_UTF16_BE):
            lines = _utf16_lines(fh, "utf-16")
        else:
            lines = _raw_lines(fh)
        out, replaced, cut_any, more = _collect(ctx, lines, offset, limit)
    remember()
    total_seen = offset - 1 + len(out)
    if not out:
        if size == 0:
            return ReadResult("(empty file)", 0, 0, [])
        raise ToolError(f"{rel} has only {total_seen} lines; offset {offset} is past the end")
    if replaced:
        notes.append("not valid UTF-8: undecodable bytes are shown as \ufffd")
    if cut_any:
        notes.append(f"lines longer than {MAX_LINE_CHARS} characters were cut")
    if more:
        notes.append(f"more lines follow: call read_file with offset={total_seen + 1} to continue")
    text = "\n".join(out)
    if notes:
        text += "\n\n[" + "; ".join(notes) + "]"
    return ReadResult(text, len(out), offset, notes)


def read_image(ctx: ToolContext, path: Path) -> ToolOutput | None:
    """``path`` as a picture for the model, with one line saying what it is; None when the file is not
    a picture (a text file under an image name is read as text); a broken picture is an error line."""
    if not is_image_file(path):
        return None
    rel = ctx.relative(path)
    with path.open("rb") as fh:
        head = fh.read(BINARY_SNIFF)
    if sniff(head) is None and not is_binary(head):
        return None
    record_state(ctx, path)
    try:
        picture = load_image(path, rel)
    except ImageError as e:
        raise ToolError(f"{rel}: {e}") from None
    return ToolOutput(f"{rel}: {picture.describe()}", summary=f"read {rel} (image)", images=[picture.part])


def _collect(ctx: ToolContext, lines: Iterator[tuple[bytes, bool]], offset: int,
             limit: int) -> tuple[list[str], bool, bool, bool]:
    out: list[str] = []
    replaced = cut_any = False
    budget = MAX_OUTPUT_CHARS
    for number, (raw, cut) in enumerate(lines, start=1):
        if number < offset:
            continue
        if len(out) >= limit or budget <= 0:
            return out, replaced, cut_any, True
        if number % 512 == 0:
            ctx.check_cancelled()
        try:
            line = codecs.getincrementaldecoder("utf-8")().decode(raw, final=not cut)
        except UnicodeDecodeError:
            line = raw.decode("utf-8", errors="replace")
            replaced = True
        if number == 1 and line.startswith("\ufeff"):
            line = line[1:]
        if len(line) > MAX_LINE_CHARS or cut:
            line = line[:MAX_LINE_CHARS] + " [… line cut]"
            cut_any = True
        entry = f"{number:>6}\t{line}"
        budget -= len(entry) + 1
        out.append(entry)
    return out, replaced, cut_any, False


def missing_file_message(ctx: ToolContext, path: Path) -> str:
    """"not found" with the closest names in the nearest existing directory."""
    rel = ctx.relative(path)
    parent = path.parent
    while not parent.is_dir() and parent != parent.parent:
        parent = parent.parent
    try:
        names = [p.name for p in parent.iterdir()][:5000]
    except OSError:
        names = []
    close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
    msg = f"{rel} does not exist"
    if path.parent != parent:
        msg += f" (nor does its directory {ctx.relative(path.parent)})"
    if close:
        msg += ". Did you mean: " + ", ".join(ctx.relative(parent / c) for c in close) + "?"
    return msg
