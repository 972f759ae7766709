"""Output governance: exact budget, head+tail with the marker, one spill file, paging note."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from axon_cli.settings.config import Settings
from axon_cli.tools.dispatch import Dispatcher, ToolCall
from axon_cli.tools.governance import NOTE_MAX, govern, head_tail, truncate_middle
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext, ToolOutput, ToolSpec
from tests.budget import examples

MARKER = re.compile(r"\n\[… (\d+) chars truncated …\]\n")


class Echo(BaseModel):
    text: str = ""
    n: int = 0


def split_body(body: str) -> tuple[str, int, str]:
    m = MARKER.search(body)
    assert m is not None, body[:200]
    return body[:m.start()], int(m.group(1)), body[m.end():]


def check_cut(original: str, body: str, limit: int) -> None:
    assert len(body) <= limit
    head, cut, tail = split_body(body)
    assert original.startswith(head) and original.endswith(tail)
    assert len(head) + cut + len(tail) == len(original)
    assert len(tail) > len(head)


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet="ab\nxyz ", min_size=1, max_size=5000), st.integers(min_value=60, max_value=3000))
def test_truncate_middle_budget_is_exact(text: str, limit: int) -> None:
    body, cut = truncate_middle(text, limit)
    if len(text) <= limit:
        assert body == text and cut == 0
    else:
        check_cut(text, body, limit)
        assert split_body(body)[1] == cut


def test_head_tail_from_windows_matches_whole_text() -> None:
    text = "".join(f"line {i}\n" for i in range(5000))
    assert head_tail(text[:3000], text[-3000:], len(text), 2000) == truncate_middle(text, 2000)[0]


def test_cuts_at_line_boundaries_when_near() -> None:
    text = "".join(f"line {i:05d}\n" for i in range(1000))
    head, _, tail = split_body(truncate_middle(text, 1000)[0])
    assert head.endswith("line 00021") and tail.startswith("line ") and tail.endswith("\n")


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "proj"
    root.mkdir()
    return ToolContext(project_root=root, state_dir=root / ".axon", session_id="s-gov", settings=Settings())


def make_dispatcher(ctx: ToolContext, handler, limit: int = 1000) -> Dispatcher:  # type: ignore[no-untyped-def]
    spec: ToolSpec[Echo] = ToolSpec(name="echo", description="echo", input_model=Echo, handler=handler,
                                    max_result_chars=limit)
    return Dispatcher(ToolRegistry([spec]), ctx)


def test_long_result_through_dispatch(ctx: ToolContext) -> None:
    text = "".join(f"row {i} " for i in range(2000)) + "FINAL STATUS: 3 failed"
    d = make_dispatcher(ctx, lambda inp, c: text)
    r = d.dispatch(ToolCall("c1", "echo", "{}"))
    assert r.truncated and r.spill_path is not None
    body, note = r.content.split("\n[full output", 1)
    check_cut(text, body, 1000)
    assert body.endswith("FINAL STATUS: 3 failed")
    assert len(r.content) <= 1000 + NOTE_MAX
    rel = str(Path(r.spill_path).relative_to(ctx.project_root))
    assert rel.startswith(".axon/tool-results/") and rel.endswith(".txt")
    assert f"saved to {rel}" in note and f'read_file(path="{rel}", offset=LINE, limit=LINES)' in note
    assert f"({len(text)} chars)" in note
    assert Path(r.spill_path).read_text() == text


def test_short_result_untouched_and_not_spilled(ctx: ToolContext) -> None:
    d = make_dispatcher(ctx, lambda inp, c: "x" * 1000)
    r = d.dispatch(ToolCall("c1", "echo", "{}"))
    assert r.content == "x" * 1000 and not r.truncated and r.spill_path is None
    assert not (ctx.state_dir / "tool-results").exists()


def test_spill_is_masked(ctx: ToolContext) -> None:
    text = "DB_PASSWORD=hunter22x\n" + "y" * 5000
    r = make_dispatcher(ctx, lambda inp, c: text).dispatch(ToolCall("c1", "echo", "{}"))
    assert r.spill_path is not None
    saved = Path(r.spill_path).read_text()
    assert saved.startswith("DB_PASSWORD=[REDACTED]\n") and "hunter22x" not in saved


def test_handler_spill_is_not_repeated(ctx: ToolContext, tmp_path: Path) -> None:
    own = tmp_path / "own.txt"
    own.write_text("z" * 12345)

    def handler(inp: Echo, c: ToolContext) -> ToolOutput:
        return ToolOutput("already cut [… 11345 chars truncated …] tail", spill_path=str(own))

    r = make_dispatcher(ctx, handler).dispatch(ToolCall("c1", "echo", "{}"))
    assert r.truncated and r.spill_path == str(own)
    assert r.content.startswith("already cut [… 11345 chars truncated …] tail\n[full output (12345 bytes)")
    assert not (ctx.state_dir / "tool-results").exists()


def test_unwritable_state_dir_still_truncates(tmp_path: Path) -> None:
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("")
    g = govern("q" * 3000, 1000, blocker / ".axon", "t")
    assert g.truncated and g.spill_path is None
    assert "could not be saved" in g.text
    check_cut("q" * 3000, g.text.split("\n[the full output", 1)[0], 1000)
