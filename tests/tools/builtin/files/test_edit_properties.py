"""Property: an edit followed by its inverse restores the file byte for byte (LF/CRLF, BOM, tabs)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.budget import examples
from tests.tools.builtin.files.test_file_tools import Tools

_LINE = st.text(alphabet=st.sampled_from(list("ab xyz\t=()'\"é€_{}:;") + ["\u201c", "\u201d"]), max_size=24)


@st.composite
def edits(draw: st.DrawFn) -> tuple[bytes, str, str, str]:
    lines = draw(st.lists(_LINE, min_size=1, max_size=20))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    final = draw(st.booleans())
    text = newline.join(lines) + (newline if final else "")
    bom = draw(st.sampled_from([b"", b"\xef\xbb\xbf"]))
    start = draw(st.integers(0, max(0, len(text) - 1)))
    end = draw(st.integers(start + 1, max(start + 1, min(len(text), start + 60))))
    old = text[start:end]
    assume(old and not old.endswith("\r") and not (start and text[start - 1] == "\r" and old[0] == "\n"))
    assume(_count(text, old) == 1)
    new = draw(_LINE) + "\u2603" + draw(st.sampled_from(["", "\n", "\n\t"])) + draw(_LINE)
    return bom + text.encode("utf-8"), old, new, newline


def _count(text: str, needle: str) -> int:
    return sum(1 for i in range(len(text)) if text.startswith(needle, i))


@pytest.mark.slow
@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                    HealthCheck.filter_too_much])
@given(edits())
def test_edit_then_inverse_restores_bytes(case: tuple[bytes, str, str, str]) -> None:
    data, old, new, _newline = case
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        tools = Tools(root)
        path = root / "f.txt"
        path.write_bytes(data)
        tools.ok("read_file", path="f.txt")
        tools.ok("edit_file", path="f.txt", old_string=old, new_string=new)
        assert path.read_bytes() != data
        tools.ok("edit_file", path="f.txt", old_string=new, new_string=old)
        assert path.read_bytes() == data
