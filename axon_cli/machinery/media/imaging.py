"""One loader for every picture going to the model (``@shot.png``, a pasted path, ``read_file``, MCP).

The format is told by magic bytes (PNG, JPEG, GIF, WebP; anything else is refused with one line).
Pillow (imported on first use: start-up never pays for it) decodes the picture in full, so a corrupt
or hostile file is refused here, never half-sent. A picture within ``MAX_EDGE`` pixels a side and
``MAX_BYTES`` bytes goes as it is; a larger one is scaled down and recompressed (PNG when that fits
and the picture has transparency or came as a lossless format, else JPEG at falling quality) until
it fits. Every failure is an ``ImageError`` whose text is one line for the user or the model.
"""

from __future__ import annotations

import base64
import io
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from axon_cli.kernel.turn import ImagePart

__all__ = ["ImageError", "Picture", "sniff", "is_image_file", "load_image", "prepare", "normalize",
           "MAX_EDGE", "MAX_BYTES", "IMAGE_SUFFIXES"]

MAX_EDGE = 1568                     # pixels on the longer side, as sent
MAX_BYTES = 1_000_000               # bytes of one picture, as sent (transcripts keep it too)
MAX_FILE_BYTES = 50 * 1024 * 1024   # a bigger file is not read at all
MAX_PIXELS = 64_000_000             # a bigger canvas is refused before decoding (decompression bombs)
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
_NAMES = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WebP"}


class ImageError(ValueError):
    """A picture that cannot be sent; the text says why in one line."""


def sniff(head: bytes) -> str | None:
    """The MIME type told by the first bytes (PNG, JPEG, GIF, WebP), or None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def is_image_file(path: Path) -> bool:
    """A file meant as a picture: an image name (.png, .jpg, ...) or image magic bytes."""
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return True
    try:
        with path.open("rb") as fh:
            return sniff(fh.read(16)) is not None
    except OSError:
        return False


@dataclass(frozen=True)
class Picture:
    """A picture ready for the model: the part to send, and what it was and became."""

    part: ImagePart
    source_format: str            # "PNG"
    source_size: tuple[int, int]  # width, height as read
    source_bytes: int
    size: tuple[int, int]         # width, height as sent

    def describe(self) -> str:
        """One line: ``PNG image, 4000x3000, 2.1 MB; sent as JPEG 1568x1176, 240 KB``."""
        w, h = self.source_size
        line = f"{self.source_format} image, {w}x{h}, {_amount(self.source_bytes)}"
        if self.size != self.source_size or self.part.mime_type != _mime(self.source_format):
            line += f"; sent as {_NAMES[self.part.mime_type]} {self.size[0]}x{self.size[1]}, {_amount(self.part.size)}"
        return line


def load_image(path: Path, label: str = "") -> Picture:
    """The picture in ``path``, ready to send; ``ImageError`` (one line) when it cannot be."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ImageError(f"too large to send as an image ({_amount(size)}; the limit is {_amount(MAX_FILE_BYTES)})")
        data = path.read_bytes()
    except OSError as e:
        raise ImageError(f"cannot read it ({e.strerror or e})") from None
    return prepare(data, label or path.name)


def normalize(part: ImagePart) -> ImagePart:
    """A picture a tool returned, checked and brought within the caps like a file's."""
    if len(part.data) > MAX_FILE_BYTES * 4 // 3 + 4:
        raise ImageError(f"too large to send as an image (over {_amount(MAX_FILE_BYTES)})")
    try:
        data = base64.b64decode(part.data, validate=True)
    except ValueError:
        raise ImageError("its data is not valid base64") from None
    return prepare(data, part.label).part


def prepare(data: bytes, label: str = "") -> Picture:
    """``data`` checked (format by magic bytes, decoded in full) and, when over the caps, scaled
    down and recompressed."""
    if len(data) > MAX_FILE_BYTES:
        raise ImageError(f"too large to send as an image ({_amount(len(data))}; the limit is {_amount(MAX_FILE_BYTES)})")
    mime = sniff(data[:16])
    if mime is None:
        raise ImageError("not a PNG, JPEG, GIF or WebP image (its first bytes match none of them)")
    try:
        return _prepare(data, mime, label)
    except ImageError:
        raise
    except Exception as e:          # Pillow's errors for broken, truncated or hostile data are many
        why = str(e).splitlines()[0][:120] if str(e) else ""
        if not why or type(e).__name__ == "UnidentifiedImageError":
            why = "the data after its header cannot be decoded"
        raise ImageError(f"not a valid {_NAMES[mime]} image ({why})") from None


def _prepare(data: bytes, mime: str, label: str) -> Picture:
    from PIL import Image

    from axon_cli.machinery.media.image_budget import BUDGET, decode_cost, progressive_jpeg_cost
    from axon_cli.machinery.media.png_chunks import png_header, without_broken_ancillary

    header = png_header(data) if mime == "image/png" else None
    readable = without_broken_ancillary(data) if header else data      # an optional chunk's bad CRC is no reason
    with warnings.catch_warnings():      # Pillow warns of a large canvas on stderr; it is checked below
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            img = Image.open(io.BytesIO(readable))
        except Image.DecompressionBombError:
            raise ImageError(f"too many pixels; the limit is {MAX_PIXELS // 1_000_000} megapixels") from None
    with img:
        width, height = img.size
        fits = max(width, height) <= MAX_EDGE and len(readable) <= MAX_BYTES
        extra = progressive_jpeg_cost(img) + (2 * header.row_bytes if header else 0)
        if not fits and mime == "image/jpeg":
            img.draft(img.mode, _scaled(width, height))       # libjpeg decodes at 1/2, 1/4 or 1/8 the size
        if img.size[0] * img.size[1] > MAX_PIXELS:
            raise ImageError(f"too many pixels ({width}x{height}); the limit is {MAX_PIXELS // 1_000_000} megapixels")
        cost = decode_cost(img, len(data), None if fits else _scaled(*img.size), extra=extra)
        if cost > BUDGET.total:
            raise ImageError(f"too large to decode ({width}x{height} {img.mode} needs about {_amount(cost)} of "
                             f"memory; the limit is {_amount(BUDGET.total)})")
        with BUDGET.hold(cost):
            done = _decoded(img, mime, fits)
    if done is None:
        return Picture(_part(mime, readable, label), _NAMES[mime], (width, height), len(data), (width, height))
    out_mime, out, size = done
    return Picture(_part(out_mime, out, label), _NAMES[mime], (width, height), len(data), size)


def _decoded(img: Any, mime: str, fits: bool) -> tuple[str, bytes, tuple[int, int]] | None:
    """``img`` decoded and, unless it ``fits`` (None then: it goes as it came), scaled and encoded. Every
    canvas is let go on return (the budget gives the memory back after)."""
    from PIL import Image, ImageOps

    from axon_cli.machinery.media.image_budget import reduced

    try:
        img.load()
        if fits and getattr(img, "n_frames", 1) == 1:
            return None
        frame = reduced(img, _scaled(*img.size))          # whole factors first, never a full-size copy
        if frame is not img:
            img.close()                                   # the full canvas goes before the next step
        frame.thumbnail((MAX_EDGE, MAX_EDGE), Image.Resampling.LANCZOS)
        frame = ImageOps.exif_transpose(frame) if mime == "image/jpeg" else frame
        return _encode(frame, lossless_first=mime != "image/jpeg")
    finally:
        img.close()


def _scaled(width: int, height: int) -> tuple[int, int]:
    """The size of a ``width``×``height`` picture brought within ``MAX_EDGE`` a side."""
    ratio = MAX_EDGE / max(width, height)
    return max(1, round(width * ratio)), max(1, round(height * ratio))


def _encode(img: Any, lossless_first: bool) -> tuple[str, bytes, tuple[int, int]]:
    """The smallest acceptable encoding within MAX_BYTES: PNG first for pictures with transparency or
    from a lossless format, then JPEG at falling quality, then smaller and smaller."""
    from PIL import Image

    alpha = img.mode in ("RGBA", "LA") or (img.mode == "P" and "transparency" in img.info)
    if lossless_first or alpha:
        png = _save(img if img.mode in ("RGB", "RGBA", "L", "LA", "P") else img.convert("RGBA"), "PNG")
        if len(png) <= MAX_BYTES:
            return "image/png", png, img.size
    flat = img.convert("RGBA") if alpha else img
    if alpha:
        background = Image.new("RGB", flat.size, (255, 255, 255))
        background.paste(flat, mask=flat.getchannel("A"))
        flat = background
    elif flat.mode not in ("RGB", "L"):
        flat = flat.convert("RGB")
    for _ in range(8):
        for quality in (85, 70, 55):
            jpeg = _save(flat, "JPEG", quality=quality)
            if len(jpeg) <= MAX_BYTES:
                return "image/jpeg", jpeg, flat.size
        flat = flat.resize((max(1, flat.width * 3 // 4), max(1, flat.height * 3 // 4)), Image.Resampling.LANCZOS)
    raise ImageError(f"cannot be brought under {_amount(MAX_BYTES)}")


def _save(img: Any, fmt: str, **options: Any) -> bytes:
    buffer = io.BytesIO()
    img.save(buffer, fmt, **options)
    return buffer.getvalue()


def _part(mime: str, data: bytes, label: str) -> ImagePart:
    return ImagePart(mime, base64.b64encode(data).decode("ascii"), label)


def _mime(name: str) -> str:
    return next(m for m, n in _NAMES.items() if n == name)


def _amount(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f} MB"
    return f"{n / 1000:.0f} KB" if n >= 1000 else f"{n} bytes"
