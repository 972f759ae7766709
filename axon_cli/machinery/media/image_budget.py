"""The memory a picture takes while it is decoded, told from its header before a pixel is decoded, and
the one budget every picture decoded in this process shares.

A small file can name a huge canvas (a 250 KB PNG of 7999×7999 RGBA decodes to 256 MB), and the
pictures of one turn are decoded side by side (read-only tool calls run concurrently). So each
decode first holds its cost from ``DECODE_BUDGET``: a picture that costs more than the whole budget
is refused, one that fits waits until the pictures before it are done. With axon's own ~60 MB
this keeps a process that reads any pictures under 300 MB.

The cost counts what Pillow and its libraries hold for one picture: the canvas (Pillow keeps 1 byte
a pixel for ``1``/``L``/``P``, 2 for 16-bit grey, 4 for everything else, RGB included, and a pointer
to each row: a 4×16,000,000 picture's rows cost more than its pixels), the PNG
decoder's two rows, libwebp's own RGBA buffer, libjpeg's coefficients of a progressive JPEG (it keeps
them for the whole picture, whatever the scale it decodes at), the file's bytes, and when the
picture is scaled down, the halved copy and the encodings of the result.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["DECODE_BUDGET", "DecodeBudget", "decode_cost", "progressive_jpeg_cost", "reduced", "BUDGET"]

DECODE_BUDGET = 200_000_000         # bytes all pictures being decoded at once may take
_SCALED_RESULT = 1568 * 1568 * 4 * 3   # a result at the largest edge sent: the picture, a conversion, an encoding
_ALPHA = frozenset({"RGBA", "LA"})      # Pillow resizes these through a premultiplied copy
_STRIP_BYTES = 8_000_000                # a strip of such a picture reduced at a time
_ONE_BYTE = frozenset({"1", "L", "P"})


def _pixel_bytes(mode: str) -> int:
    if mode in _ONE_BYTE:
        return 1
    return 2 if mode.startswith("I;16") else 4


def progressive_jpeg_cost(img: Any) -> int:
    """Bytes of libjpeg's coefficient arrays for a progressive JPEG at its full size (0 for a baseline
    one): two bytes a coefficient, each component at its sampling."""
    if not img.info.get("progressive"):
        return 0
    width, height = img.size
    layers = getattr(img, "layer", None) or [("", 1, 1, 0)] * 3
    h_max = max(layer[1] for layer in layers) or 1
    v_max = max(layer[2] for layer in layers) or 1
    return sum(2 * math.ceil(width * layer[1] / h_max) * math.ceil(height * layer[2] / v_max) for layer in layers)


def decode_cost(img: Any, file_bytes: int, scaled_to: tuple[int, int] | None, extra: int = 0) -> int:
    """Bytes decoding ``img`` (opened, not loaded; at the size it will decode to) may take, and scaling
    it to ``scaled_to`` (by whole factors first: ``Image.reduce``, then a resampled copy of that)."""
    width, height = img.size
    canvas = width * height * _pixel_bytes(img.mode) + 8 * height      # and a pointer to each row
    cost = canvas + file_bytes + extra
    if img.format == "WEBP":
        cost += width * height * 4
    if scaled_to:
        factors = _factors(img.size, scaled_to)
        cost += 2 * canvas // (factors[0] * factors[1]) + 2 * _STRIP_BYTES + _SCALED_RESULT
    return cost


def _factors(size: tuple[int, int], target: tuple[int, int]) -> tuple[int, int]:
    return max(1, size[0] // max(1, target[0])), max(1, size[1] // max(1, target[1]))


def reduced(img: Any, target: tuple[int, int]) -> Any:
    """``img`` (loaded) shrunk by whole factors towards ``target`` (box averages): ``img`` itself when it
    is less than twice as large. A picture with alpha goes strip by strip, as Pillow would otherwise
    make a premultiplied copy of the whole canvas first."""
    fx, fy = _factors(img.size, target)
    if fx == fy == 1:
        return img
    if img.mode not in _ALPHA:
        return img.reduce((fx, fy))
    from PIL import Image

    width, height = img.size
    out = Image.new(img.mode, (-(-width // fx), -(-height // fy)))
    rows = fy * max(1, _STRIP_BYTES // (width * 4 * fy))
    for top in range(0, height, rows):
        out.paste(img.crop((0, top, width, min(height, top + rows))).reduce((fx, fy)), (0, top // fy))
    return out


class DecodeBudget:
    """Bytes held by the decodes in progress; ``hold`` waits for room (the caller refuses a cost over ``total``)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self._used = 0
        self._room = threading.Condition()

    @contextmanager
    def hold(self, cost: int) -> Iterator[None]:
        """Hold ``cost`` bytes for the block, once the decodes before it leave room (at most the whole budget)."""
        cost = min(cost, self.total)
        with self._room:
            self._room.wait_for(lambda: self._used + cost <= self.total)
            self._used += cost
        try:
            yield
        finally:
            _give_back()
            with self._room:
                self._used -= cost
                self._room.notify_all()


def _give_back() -> None:
    """Freed canvases back to the system: glibc keeps what a thread freed in that thread's arena, so
    four pictures decoded one after another on four threads would otherwise hold four canvases."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):        # not glibc: nothing to give back this way
        ctypes.CDLL(None).malloc_trim(0)


BUDGET = DecodeBudget(DECODE_BUDGET)
