"""What a new user sees in the REPL for a failed call whose summary was cut, and for an output too
long for the model (spilled to .axon/tool-results/)."""

from __future__ import annotations

import io
import os
from pathlib import Path

from rich.console import Console

from axon_cli.app.ui.stream import StreamView
from axon_cli.kernel.events import ToolCallBegin, ToolCallEnd

VALIDATION = ("Error: 1 validation error in the arguments of read_file:\n  - path: Field required (expected string)\n"
              "  - unexpected argument 'pathx'; the parameters are: path, offset, limit\n"
              "Fix the arguments and try again.")


def view_output(*events: ToolCallBegin | ToolCallEnd, width: int = 300) -> str:
    c = Console(width=width, file=io.StringIO(), color_system=None, force_terminal=True,
                legacy_windows=False, highlight=False)
    view = StreamView(c, live=False)
    for event in events:
        view(event)
    view.sync()
    return "\n".join(line.rstrip() for line in c.file.getvalue().split("\n"))  # type: ignore[attr-defined]


def test_validation_error_shows_every_bad_field() -> None:
    out = view_output(ToolCallBegin(call_id="c1", name="read_file", arguments={"pathx": "a"}),
                      ToolCallEnd(call_id="c1", name="read_file", ok=False, output=VALIDATION,
                                  summary="Error: 1 validation error in the arguments of read_file:"))
    assert out == ("✗ read_file(a) · 1 validation error in the arguments of read_file: - path: Field required "
                   "(expected string) - unexpected argument 'pathx'; the parameters are: path, offset, limit "
                   "Fix the arguments and try again.\n")


def test_an_error_with_its_own_summary_keeps_it() -> None:
    out = view_output(ToolCallEnd(call_id="c1", name="bash", ok=False, output="Error: exit 1",
                                  summary="exit 1 in 3.2 s", duration_ms=3200))
    assert out == "✗ bash · exit 1 in 3.2 s\n"


def test_spilled_output_says_where_the_full_text_is(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    spill = tmp_path / ".axon" / "tool-results" / "x-bash.txt"
    out = view_output(ToolCallBegin(call_id="c1", name="bash", arguments={"command": "seq 1 9"}, summary="seq 1 9"),
                      ToolCallEnd(call_id="c1", name="bash", ok=True, output="1\n…\n9", summary="exit 0 in 0.1 s",
                                  truncated=True, spill_path=str(spill)))
    assert out == ("✓ bash(seq 1 9) · exit 0 in 0.1 s\n"
                   f"  output truncated; full text in {os.path.join('.axon', 'tool-results', 'x-bash.txt')}\n")
