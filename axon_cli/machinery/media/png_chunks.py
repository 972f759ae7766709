"""A PNG's chunks, read without decoding a pixel: its header, and the file without the optional
chunks whose checksum is wrong.

PNG names a chunk critical (``IHDR``, ``PLTE``, ``IDAT``, ``IEND``: upper-case first letter) or
ancillary (``iCCP``, ``tEXt``, ``eXIf``…: lower-case). Decoders such as libpng skip an ancillary
chunk with a bad checksum and keep the picture; Pillow refuses the whole file unless
``ImageFile.LOAD_TRUNCATED_IMAGES`` is set, which would also accept cut pixel data. So the broken
optional chunks are dropped here, before Pillow sees the file, and nothing else changes: a bad
critical chunk, a chunk running past the end of the file or cut pixel data are left for the decoder
to refuse.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

__all__ = ["PngHeader", "png_header", "without_broken_ancillary"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}     # colour type → samples per pixel


@dataclass(frozen=True)
class PngHeader:
    """What ``IHDR`` says: the canvas, bits per sample and colour type."""

    width: int
    height: int
    bit_depth: int
    colour_type: int

    @property
    def row_bytes(self) -> int:
        """Bytes of one filtered row as the decoder holds it (filter byte included)."""
        bits = self.width * _CHANNELS.get(self.colour_type, 4) * self.bit_depth
        return 1 + (bits + 7) // 8


def png_header(data: bytes) -> PngHeader | None:
    """The header of a PNG whose first chunk is a whole ``IHDR``; None otherwise."""
    if not data.startswith(_SIGNATURE) or len(data) < 33 or data[12:16] != b"IHDR":
        return None
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    return PngHeader(width, height, depth, colour)


def without_broken_ancillary(data: bytes) -> bytes:
    """``data`` without its ancillary chunks whose CRC is wrong (``data`` itself when there are none)."""
    keep: list[bytes] = []
    dropped = False
    start, pos = 0, len(_SIGNATURE)
    while pos + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        end = pos + 12 + length
        if end > len(data):
            break                               # runs past the end: the decoder says so
        if kind[0] & 0x20:                      # ancillary: the 5th bit of the first letter
            (crc,) = struct.unpack(">I", data[end - 4:end])
            if zlib.crc32(data[pos + 4:end - 4]) & 0xFFFFFFFF != crc:
                keep.append(data[start:pos])
                start, dropped = end, True
        pos = end
        if kind == b"IEND":
            break
    return b"".join(keep) + data[start:] if dropped else data
