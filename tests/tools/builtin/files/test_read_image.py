"""Unit: read_file on a picture returns it (as an MCP result would) with one line naming it; a broken
picture is an error line; a text file under an image name is read as text."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from PIL import Image

from tests.tools.builtin.files.test_file_tools import Tools


@pytest.fixture
def files(project: Path) -> Tools:
    return Tools(project)


def png(size: tuple[int, int]) -> bytes:
    buffer = io.BytesIO()
    Image.linear_gradient("L").resize(size).save(buffer, "PNG")
    return buffer.getvalue()


def test_an_image_comes_back_as_a_picture(files: Tools) -> None:
    data = png((30, 20))
    (files.root / "shot.png").write_bytes(data)
    result = files.call("read_file", path="shot.png")
    assert result.ok and result.content.startswith("shot.png: PNG image, 30x20,")
    assert [(i.mime_type, base64.b64decode(i.data), i.label) for i in result.images] == [("image/png", data, "shot.png")]


def test_a_large_image_comes_back_scaled(files: Tools) -> None:
    (files.root / "big.png").write_bytes(png((4000, 3000)))
    result = files.call("read_file", path="big.png")
    assert result.ok and "PNG image, 4000x3000" in result.content and "sent as" in result.content
    with Image.open(io.BytesIO(base64.b64decode(result.images[0].data))) as sent:
        assert sent.size == (1568, 1176)


def test_a_broken_image_is_one_error_line(files: Tools) -> None:
    (files.root / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0" + bytes(range(256)) * 4)
    out = files.err("read_file", path="bad.png")
    assert out.startswith("Error: bad.png: not a valid PNG image (") and "\n" not in out.strip()


def test_text_under_an_image_name_is_read_as_text(files: Tools) -> None:
    (files.root / "notes.png").write_text("not a picture\n")
    result = files.call("read_file", path="notes.png")
    assert result.ok and result.content == "     1\tnot a picture" and result.images == []
