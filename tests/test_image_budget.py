"""Unit: the decode budget (``axon_cli/machinery/media/image_budget.py``) and PNG chunk repair (``axon_cli/machinery/media/png_chunks.py``)."""

from __future__ import annotations

import threading

import pytest

from axon_cli.machinery.media.image_budget import DecodeBudget
from axon_cli.machinery.media.imaging import ImageError, prepare
from axon_cli.machinery.media.png_chunks import png_header, without_broken_ancillary
from tests.e2e.attacks.pictures import blank_png, png_chunk

SIG = b"\x89PNG\r\n\x1a\n"


def with_chunk(png: bytes, kind: bytes, data: bytes, crc_ok: bool) -> bytes:
    """``png`` with one more chunk after IHDR (a wrong CRC when not ``crc_ok``)."""
    chunk = png_chunk(kind, data)
    if not crc_ok:
        chunk = chunk[:-4] + bytes(b ^ 0xFF for b in chunk[-4:])
    return png[:33] + chunk + png[33:]


def test_a_broken_ancillary_chunk_is_dropped_and_the_picture_sent() -> None:
    broken = with_chunk(blank_png(8, 8), b"tEXt", b"Comment\0hi", crc_ok=False)
    assert without_broken_ancillary(broken) == blank_png(8, 8)
    assert prepare(broken).size == (8, 8)


def test_an_intact_file_is_returned_as_it_is() -> None:
    fine = with_chunk(blank_png(8, 8), b"tEXt", b"Comment\0hi", crc_ok=True)
    assert without_broken_ancillary(fine) is fine


@pytest.mark.parametrize("kind", [b"IHDR", b"PLTE"])
def test_a_broken_critical_chunk_is_still_refused(kind: bytes) -> None:
    png = blank_png(8, 8)
    if kind == b"IHDR":
        broken = png[:29] + bytes(b ^ 0xFF for b in png[29:33]) + png[33:]
    else:
        broken = with_chunk(png, kind, bytes(768), crc_ok=False)
    assert without_broken_ancillary(broken) == broken
    with pytest.raises(ImageError):
        prepare(broken)


def test_the_header_is_read_without_decoding() -> None:
    header = png_header(blank_png(16_000_000, 4))
    assert header is not None and (header.width, header.height, header.row_bytes) == (16_000_000, 4, 64_000_001)
    assert png_header(SIG + b"junk") is None


def test_a_decode_waits_for_room_and_never_more_than_the_total_is_held() -> None:
    budget = DecodeBudget(100)
    peak, held, lock = [0], [0], threading.Lock()
    first_in = threading.Event()

    def decode(cost: int, wait: threading.Event | None) -> None:
        with budget.hold(cost):
            with lock:
                held[0] += cost
                peak[0] = max(peak[0], held[0])
            first_in.set()
            if wait is not None:
                assert wait.wait(10)
            with lock:
                held[0] -= cost

    release = threading.Event()
    first = threading.Thread(target=decode, args=(70, release))
    first.start()
    assert first_in.wait(10)
    others = [threading.Thread(target=decode, args=(60, None)) for _ in range(3)]
    for t in others:
        t.start()
    release.set()
    for t in [first, *others]:
        t.join(20)
    assert peak[0] <= 100 and not any(t.is_alive() for t in [first, *others])
