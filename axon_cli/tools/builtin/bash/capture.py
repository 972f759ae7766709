"""Output arriving in pieces (a running command): masked, bounded in memory, spilled over a limit.

Everything kept (head and tail windows, the spill file) is masked text. A secret split across a
line longer than 1 MB may escape masking; PEM, PuTTY and base64 PEM key blocks are held back until
they end.

Fast path (plain ASCII output, a ``Masker`` with the Hyperscan prefilter): the command's output
is read into one reused buffer, scanned there in one pass, and written to the spill file from it;
only lines with a candidate secret are decoded and masked in Python. Everything else goes the
general way (decode, mask, encode) with the same result.
"""

from __future__ import annotations

import codecs
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from axon_cli.machinery.masking import has_block_mark, safe_boundary
from axon_cli.tools.builtin.bash.spill_writer import SpillWriter
from axon_cli.tools.governance import head_tail, spill_file_path

__all__ = ["StreamCapture", "READ_SIZE"]

READ_SIZE = 1 << 20     # one read from the command's pipe takes at most this much
_PENDING_MAX = 1 << 20  # a line longer than this is masked in pieces
_FAST_MIN = 1 << 15     # pieces smaller than this go the general way


class StreamCapture:
    """Feed it bytes (``feed``) or let it read a pipe (``read_from``); ``close``, then ``text``."""

    def __init__(self, limit: int, state_dir: Path, tool: str, mask: Callable[[str], str]) -> None:
        self.limit = limit
        self.total = 0                  # masked chars seen
        self.spill_path: str | None = None
        self._state_dir, self._tool, self._mask = state_dir, tool, mask
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pending = ""
        self._head = ""
        self._tail = ""
        self._spill_writer: SpillWriter | None = None   # the spill file, written on its own thread
        self._prefix: Callable[[str], tuple[str, int]] | None = getattr(mask, "prefix", None)
        self._mask_ascii: Callable[..., Any] | None = getattr(mask, "mask_ascii", None)
        self._bufs: list[bytearray] = []                  # two read buffers, taking turns
        self._free = [threading.Event(), threading.Event()]   # set: the buffer's pieces are written
        self._turn = 0
        self._reading: threading.Event | None = None       # the event of the buffer being taken in
        for free in self._free:
            free.set()

    def read_from(self, fd: int) -> int:
        """Read once from ``fd`` into one of the capture's two buffers (the other may still be on
        its way to the spill file) and take it in; 0 at end of file."""
        if not self._bufs:
            self._bufs = [bytearray(READ_SIZE), bytearray(READ_SIZE)]
        i, self._turn = self._turn, self._turn ^ 1
        self._free[i].wait()
        n = os.readv(fd, [self._bufs[i]])
        if n:
            self._reading = self._free[i]
            try:
                self.feed_buffer(self._bufs[i], n)
            finally:
                self._reading = None
        return n

    def feed_buffer(self, buf: bytearray, n: int) -> None:
        """Take ``buf[:n]`` (the buffer may be reused as soon as this returns)."""
        if not (n >= _FAST_MIN and self._feed_ascii(buf, n)):
            self.feed(memoryview(buf)[:n])

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        self._pending += self._decoder.decode(data)
        if self._prefix is not None:          # a Masker: boundary and masking from one scan
            masked, n = self._prefix(self._pending)
        else:
            n = safe_boundary(self._pending)
            masked = ""
        if n == 0 and len(self._pending) > _PENDING_MAX:
            n = len(self._pending)
            masked = self._mask(self._pending)
        elif n and self._prefix is None:
            masked = self._mask(self._pending[:n])
        if n:
            self._pending = self._pending[n:]
            self._add(masked)

    def _feed_ascii(self, buf: bytearray, n: int) -> bool:
        """``buf[:n]`` as pending line + whole lines + a new pending line, the whole lines masked
        in place; False (nothing taken) when the general way must decide (not ASCII, a PEM block
        or an environment secret around, no Hyperscan)."""
        if (self._mask_ascii is None or self._decoder.getstate()[0] or "\n" in self._pending
                or has_block_mark(self._pending)):
            return False
        first, last = buf.find(b"\n", 0, n), buf.rfind(b"\n", 0, n)
        if first < 0:
            return False
        head_raw, rest_raw = bytes(buf[:first + 1]), bytes(buf[last + 1:n])
        if not (head_raw.isascii() and rest_raw.isascii()):
            return False
        head = self._pending + head_raw.decode("ascii")
        if has_block_mark(head):
            return False
        body = self._mask_ascii(buf, first + 1, last + 1)     # None if a byte in it is not ASCII
        if body is None:
            return False
        masked_head = self._mask(head)
        self._pending = rest_raw.decode("ascii")
        self._add(masked_head)
        self._add_ascii(body)
        return True

    def close(self) -> None:
        """Flush what is pending and close the spill file (idempotent)."""
        self._pending += self._decoder.decode(b"", final=True)
        if self._pending:
            chunk, self._pending = self._pending, ""
            self._add(self._mask(chunk))
        if self._spill_writer is not None:
            writer, self._spill_writer = self._spill_writer, None
            writer.close()

    def text(self, limit: int | None = None) -> str:
        """All of the output if it fits ``limit`` (default: the capture's), else head + marker + tail."""
        limit = self.limit if limit is None else min(limit, self.limit)
        if self.total <= limit:
            return self._head[:self.total]
        return head_tail(self._head, self._tail, self.total, limit)

    def _spill(self, size: int) -> bool:
        """Whether output goes to the spill file (opened when the output first exceeds the limit)."""
        if self._spill_writer is None and self.spill_path is None and self.total + size > self.limit:
            path = spill_file_path(self._state_dir, self._tool)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o666)
            self.spill_path = str(path)
            self._spill_writer = SpillWriter(fd)
            self._write(self._head.encode("utf-8", "replace"))   # all so far is in the head window
        return self._spill_writer is not None

    def _write(self, data: bytes | memoryview) -> None:
        assert self._spill_writer is not None
        if isinstance(data, memoryview):
            if self._reading is None:        # a caller's buffer, free again when feed_buffer returns
                data = bytes(data)
            else:                            # our read buffer: reused only once this piece is written
                self._spill_writer.write(data, self._reading)
                return
        self._spill_writer.write(data)

    def _add(self, s: str) -> None:
        if not s:
            return
        if self._spill(len(s)):
            self._write(s.encode("utf-8", "replace"))
        self.total += len(s)
        if len(self._head) < self.limit:
            self._head += s[:self.limit - len(self._head)]
        self._tail += s
        if len(self._tail) > 2 * self.limit:
            self._tail = self._tail[-self.limit:]

    def _add_ascii(self, data: bytes | memoryview) -> None:
        """``data`` is masked ASCII (chars = bytes); only the head and tail windows are decoded."""
        size = len(data)
        if not size:
            return
        if self._spill(size):
            self._write(data)
        self.total += size
        if len(self._head) < self.limit:
            self._head += bytes(data[:self.limit - len(self._head)]).decode("ascii")
        if size >= self.limit:
            self._tail = bytes(data[size - self.limit:]).decode("ascii")
        else:
            self._tail += bytes(data).decode("ascii")
            if len(self._tail) > 2 * self.limit:
                self._tail = self._tail[-self.limit:]
