"""Unit: the picture loader (``axon_cli/machinery/media/imaging.py``): format by magic bytes, pictures within the caps
sent as they are, larger ones scaled and recompressed under the caps, broken or hostile data refused
with one line."""

from __future__ import annotations

import base64
import io
import random
from pathlib import Path

import pytest
from PIL import Image

from axon_cli.kernel.turn import ImagePart
from axon_cli.machinery.media.imaging import (
    MAX_BYTES,
    MAX_EDGE,
    ImageError,
    is_image_file,
    load_image,
    normalize,
    prepare,
    sniff,
)

NOISE = random.Random(20261202)     # seeded: the same test ids in every process (pytest-xdist compares them)


def encoded(img: Image.Image, fmt: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    img.save(buffer, fmt, **options)
    return buffer.getvalue()


def noise(width: int, height: int, mode: str = "RGB") -> Image.Image:
    return Image.frombytes(mode, (width, height), NOISE.randbytes(width * height * len(mode)))


def decoded(data: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(data))
    img.load()
    return img


@pytest.mark.parametrize(("fmt", "mime"), [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"),
                                           ("WEBP", "image/webp")])
def test_each_format_is_told_by_its_magic_bytes_and_a_small_one_goes_as_it_is(fmt: str, mime: str) -> None:
    data = encoded(noise(16, 12), fmt)
    assert sniff(data[:16]) == mime
    picture = prepare(data, "x")
    assert picture.part == ImagePart(mime, base64.b64encode(data).decode(), "x")
    assert picture.size == picture.source_size == (16, 12)


@pytest.mark.parametrize("data", [b"BM" + bytes(100), b"%PDF-1.7\n", b"<svg xmlns='x'/>", b"", NOISE.randbytes(64)],
                         ids=["bmp", "pdf", "svg", "empty", "noise"])
def test_other_formats_are_refused_in_one_line(data: bytes) -> None:
    if sniff(data[:16]) is not None:
        pytest.skip("the random bytes happen to start like an image")
    with pytest.raises(ImageError, match=r"^not a PNG, JPEG, GIF or WebP image") as caught:
        prepare(data)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("data", [
    b"\x89PNG\r\n\x1a\n" + NOISE.randbytes(2000),                       # a header, then noise
    encoded(noise(300, 200), "PNG")[:3000],                        # cut off in the middle
    b"\xff\xd8\xff\xe0" + NOISE.randbytes(500),
    b"GIF89a" + NOISE.randbytes(40),
], ids=["png-noise", "png-cut", "jpeg-noise", "gif-noise"])
def test_broken_data_is_one_line_never_an_exception_of_pillow(data: bytes) -> None:
    with pytest.raises(ImageError, match=r"^not a valid (PNG|JPEG|GIF) image \(") as caught:
        prepare(data)
    assert "\n" not in str(caught.value) and "<_io" not in str(caught.value)


def test_a_large_picture_is_scaled_to_the_max_edge_keeping_its_shape() -> None:
    big = Image.linear_gradient("L").resize((4000, 3000)).convert("RGB")
    picture = prepare(encoded(big, "PNG"))
    sent = decoded(base64.b64decode(picture.part.data))
    assert sent.size == picture.size == (MAX_EDGE, MAX_EDGE * 3 // 4)
    assert picture.source_size == (4000, 3000) and picture.part.size <= MAX_BYTES
    assert "PNG image, 4000x3000" in picture.describe() and f"{MAX_EDGE}x{MAX_EDGE * 3 // 4}" in picture.describe()


def test_a_picture_over_the_byte_cap_is_recompressed_under_it() -> None:
    data = encoded(noise(1200, 1000), "PNG")             # within the edge, ~3.6 MB of noise
    assert len(data) > MAX_BYTES
    picture = prepare(data)
    assert picture.part.size <= MAX_BYTES and picture.part.mime_type == "image/jpeg"
    assert decoded(base64.b64decode(picture.part.data)).format == "JPEG"


def test_transparency_survives_when_the_png_fits() -> None:
    img = Image.new("RGBA", (3000, 100), (255, 0, 0, 0))
    picture = prepare(encoded(img, "PNG"))
    sent = decoded(base64.b64decode(picture.part.data))
    assert picture.part.mime_type == "image/png" and sent.mode == "RGBA" and sent.size[0] == MAX_EDGE


def test_a_canvas_of_too_many_pixels_is_refused_before_decoding() -> None:
    bomb = encoded(Image.new("1", (9000, 8000)), "PNG")     # a tiny file, 72 megapixels
    assert len(bomb) < 100_000
    with pytest.raises(ImageError, match="too many pixels"):
        prepare(bomb)


def test_an_animated_gif_goes_as_its_first_frame() -> None:
    frames = [Image.new("RGB", (20, 20), c) for c in ("red", "blue")]
    buffer = io.BytesIO()
    frames[0].save(buffer, "GIF", save_all=True, append_images=frames[1:])
    picture = prepare(buffer.getvalue())
    sent = decoded(base64.b64decode(picture.part.data))
    assert getattr(sent, "n_frames", 1) == 1 and sent.convert("RGB").getpixel((0, 0)) == (255, 0, 0)


def test_files_and_tool_pictures(tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    shot.write_bytes(encoded(noise(8, 8), "PNG"))
    unnamed = tmp_path / "capture"
    unnamed.write_bytes(shot.read_bytes())
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    assert is_image_file(shot) and is_image_file(unnamed) and not is_image_file(text)
    assert load_image(shot).part.label == "shot.png"
    with pytest.raises(ImageError, match="cannot read it"):
        load_image(tmp_path / "gone.png")
    part = ImagePart("image/png", base64.b64encode(shot.read_bytes()).decode(), "image 1")
    assert normalize(part) == part
    with pytest.raises(ImageError, match="not valid base64"):
        normalize(ImagePart("image/png", "not base64!!", "image 1"))
