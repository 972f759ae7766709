"""The spill file written on its own thread: in order, the buffer handed back only once written,
and a write error raised by close."""

from __future__ import annotations

import os
import threading

import pytest

from axon_cli.tools.builtin.bash.spill_writer import SpillWriter


def test_pieces_are_written_in_order_and_the_event_says_when_a_buffer_is_free(tmp_path):
    path = tmp_path / "spill"
    writer = SpillWriter(os.open(path, os.O_WRONLY | os.O_CREAT))
    buf = bytearray(b"a" * 1000)
    free = threading.Event()
    free.set()
    for i in range(50):
        assert free.wait(10)                 # the previous piece from buf is written: reuse it
        buf[:] = bytes([97 + i % 26]) * 1000
        writer.write(memoryview(buf)[:1000], free)
        writer.write(b"|")
    writer.close()
    expected = b"".join(bytes([97 + i % 26]) * 1000 + b"|" for i in range(50))
    assert path.read_bytes() == expected


def test_a_write_error_is_raised_by_close_and_later_pieces_are_dropped(tmp_path):
    path = tmp_path / "spill"
    path.write_bytes(b"")
    writer = SpillWriter(os.open(path, os.O_RDONLY))      # writing fails (EBADF)
    done = threading.Event()
    writer.write(b"one", done)
    writer.write(b"two")
    assert done.wait(10)                                  # set even when the write failed
    with pytest.raises(OSError):
        writer.close()
    assert path.read_bytes() == b""
