"""Hostile pictures for the attack tests and bench/bench_images.py: small files naming large canvases."""

from __future__ import annotations

import functools
import io
import struct
import zlib

__all__ = ["png_chunk", "blank_png", "big_jpeg"]


def png_chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk: length, type, data, CRC."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


@functools.lru_cache(maxsize=8)
def blank_png(width: int, height: int, grey: bool = False) -> bytes:
    """An RGBA (or grey) PNG of ``width``×``height`` blank pixels, compressed rows at a time, about a
    MiB per call (a small file; the same bytes as row by row, without 16 million calls for a tall one)."""
    row = b"\0" * (1 + width * (1 if grey else 4))
    packer = zlib.compressobj(9)
    idat = bytearray()
    per = max(1, (1 << 20) // len(row))
    whole, rest = divmod(height, per)
    block = row * per
    for _ in range(whole):
        idat += packer.compress(block)
    idat += packer.compress(row * rest)
    idat += packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 0 if grey else 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) + png_chunk(b"IDAT", bytes(idat))
            + png_chunk(b"IEND", b""))


@functools.lru_cache(maxsize=4)
def big_jpeg(side: int, progressive: bool = False, mode: str = "RGB") -> bytes:
    """A ``side``×``side`` JPEG of a smooth gradient."""
    from PIL import Image

    img = Image.linear_gradient("L").resize((side, side))
    buffer = io.BytesIO()
    (img if mode == "L" else img.convert(mode)).save(buffer, "JPEG", quality=50, progressive=progressive)
    return buffer.getvalue()
