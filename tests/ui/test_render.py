"""Snapshot tests of the REPL's rendering helpers against a fixed-width rich Console."""

from __future__ import annotations

import io

from rich.console import Console

from axon_cli.app.ui.render import (
    diff_text,
    print_error,
    print_todos,
    print_tool_end,
    split_committed,
    tool_label,
    toolbar_text,
)
from axon_cli.app.ui.stream import StreamView
from axon_cli.kernel.events import (
    AssistantDelta,
    AssistantMessage,
    Error,
    TodoUpdated,
    ToolCallBegin,
    ToolCallEnd,
    TurnComplete,
    TurnStarted,
)

DIFF = "--- a/src/x.py\n+++ b/src/x.py\n@@ -1,2 +1,2 @@\n-a = 1\n+a = 2\n b = 3\n"


def console(color: bool = False, terminal: bool = True) -> Console:
    return Console(width=80, file=io.StringIO(), color_system="standard" if color else None,
                   force_terminal=terminal, legacy_windows=False, highlight=False)


def output(c: Console) -> str:
    value = c.file.getvalue()  # type: ignore[attr-defined]
    return "\n".join(line.rstrip() for line in value.split("\n"))


def test_tool_end_lines_snapshot():
    c = console()
    print_tool_end(c, "bash", "bash(pytest -q)", False, "exit 1 in 3.2 s", "Error: exit 1", 3200)
    print_tool_end(c, "read_file", "read_file(src/app.py)", True, "read 120 lines", "...", 12)
    print_tool_end(c, "bash", "bash(make)", True, "exit 0", "ok", 4500)
    print_tool_end(c, "bash", "bash(curl x)", False, "",
                   'Permission denied: deny rule "bash(curl *)" in .axon/permissions.toml (rule)', 0)
    print_tool_end(c, "grep", "grep", False, "", "Error: unknown tool 'grep'. Available tools: a, b", 0)
    assert output(c) == (
        "✗ bash(pytest -q) · exit 1 in 3.2 s\n"
        "✓ read_file(src/app.py) · read 120 lines\n"
        "✓ bash(make) · exit 0 (4.5 s)\n"
        '⊘ bash(curl x) denied: deny rule "bash(curl *)" in .axon/permissions.toml (rule)\n'
        "✗ grep · unknown tool 'grep'. Available tools: a, b\n")


def test_edit_shows_diff_snapshot():
    c = console()
    print_tool_end(c, "edit_file", "edit_file(src/x.py)", True, "edited src/x.py +1 −1", "ok", 5, {"diff": DIFF})
    assert output(c) == (
        "✓ edit_file(src/x.py) · edited src/x.py +1 −1\n"
        "  --- a/src/x.py\n  +++ b/src/x.py\n  @@ -1,2 +1,2 @@\n  -a = 1\n  +a = 2\n   b = 3\n")


def test_failed_edit_shows_no_diff():
    c = console()
    print_tool_end(c, "edit_file", "edit_file(x)", False, "", "Error: old_string not found", 5, {"diff": DIFF})
    assert output(c) == "✗ edit_file(x) · old_string not found\n"


def test_diff_is_coloured_and_capped():
    c = console(color=True)
    c.print(diff_text(DIFF))
    raw = c.file.getvalue()  # type: ignore[attr-defined]
    assert "\x1b[32m  +a = 2" in raw and "\x1b[31m  -a = 1" in raw and "\x1b[36m  @@" in raw
    long = "\n".join(f"+line {i}" for i in range(100))
    plain = diff_text(long, max_lines=10).plain
    assert plain.count("+line") == 10 and plain.endswith("… 90 more diff lines")


def test_todos_and_error_snapshot():
    c = console()
    print_todos(c, [{"content": "read code", "status": "done"}, {"content": "fix bug", "status": "in_progress"},
                    {"content": "test", "status": "pending"}])
    print_error(c, "HTTP 500 from the endpoint: boom\nsecond line")
    assert output(c) == "Todo\n  ☑ read code\n  ◐ fix bug\n  ☐ test\n✗ error: HTTP 500 from the endpoint: boom\n"


def test_tool_label_is_one_line_and_capped():
    assert tool_label("bash", "ls   -la\n  src") == "bash(ls -la src)"
    assert tool_label("read_file", "") == "read_file"
    long = tool_label("bash", "x" * 200, width=30)
    assert len(long) == 30 and long.endswith("…)")


def test_toolbar_text():
    assert toolbar_text("gpt-x", "default", 15_200, 128_000, "$0.0123") == \
        "gpt-x · mode default · context 12% (15.2k/128.0k) · $0.0123"
    assert toolbar_text("m", "yolo", 0, 8000, "") == "m · mode yolo · context 0% (0/8.0k)"


def test_split_committed_blocks():
    assert split_committed("one\n\ntwo") == ("", "one\n\ntwo")            # next line incomplete
    assert split_committed("one\n\ntwo\n") == ("one\n\n", "two\n")
    assert split_committed("```\na\n\nb\n") == ("", "```\na\n\nb\n")       # inside a fence
    assert split_committed("```\na\n\nb\n```\nafter") == ("```\na\n\nb\n```\n", "after")
    assert split_committed("- a\n\n- b\n") == ("", "- a\n\n- b\n")         # a loose list stays whole
    assert split_committed("p\n\n    code\n") == ("", "p\n\n    code\n")


def _stream(text: str, step: int, terminal: bool = True) -> str:
    c = console(terminal=terminal)
    view = StreamView(c, live=False)
    view(TurnStarted(turn=1))
    for i in range(0, len(text), step):
        view(AssistantDelta(text=text[i:i + step]))
    view(AssistantMessage(content=text))
    view(TurnComplete(result=text, num_turns=1, stop_reason="final"))
    view.sync()
    return output(c)


def test_streamed_markdown_prints_each_line_once_whatever_the_chunking():
    text = ("# Title\n\nFirst paragraph with **bold**.\n\nSecond paragraph.\n\n```python\nx = 1\n\ny = 2\n```\n\n"
            "- item one\n- item two\n\nLast line.")
    whole = _stream(text, len(text))
    for step in (1, 3, 7):
        assert _stream(text, step) == whole
    for needle in ("Title", "First paragraph with bold.", "Second paragraph.", "x = 1", "y = 2",
                   "• item one", "Last line."):
        assert whole.count(needle) == 1, needle
    assert whole.index("Second") < whole.index("x = 1") < whole.index("item one") < whole.index("Last")


def test_plain_output_keeps_markdown_source():
    text = "Some *text*.\n\n- a\n- b\n\nEnd."
    assert _stream(text, 2, terminal=False) == "Some *text*.\n\n- a\n- b\n\nEnd.\n"


def test_tool_events_and_todo_only_when_changed():
    c = console()
    view = StreamView(c, live=False)
    view(ToolCallBegin(call_id="c1", name="bash", arguments={"command": "ls"}, summary="ls"))
    view(ToolCallBegin(call_id="c2", name="todo_write", arguments={"todos": []}))
    view(ToolCallEnd(call_id="c1", name="bash", ok=True, output="a\nb", summary="exit 0", duration_ms=20))
    todos = [{"content": "one", "status": "pending"}]
    view(TodoUpdated(todos=todos))
    view(TodoUpdated(todos=todos))
    view(ToolCallEnd(call_id="c2", name="todo_write", ok=True, output="ok", summary="1 todo"))
    view(Error(message="HTTP 401: bad key"))
    view(TurnComplete(result="interrupted by user", num_turns=1, stop_reason="interrupted"))
    view.sync()
    assert output(c) == ("✓ bash(ls) · exit 0\nTodo\n  ☐ one\n✓ todo_write · 1 todo\n"
                         "✗ error: HTTP 401: bad key\n"
                         "⏹ interrupted — your next message continues the conversation\n")


def test_approved_change_does_not_repeat_its_diff():
    from axon_cli.kernel.events import ApprovalRequested, PermissionDecision

    c = console()
    view = StreamView(c, live=False)
    view(ToolCallBegin(call_id="c1", name="edit_file", arguments={"path": "x.py"}, summary="src/x.py"))
    view(ApprovalRequested(call_id="c1", name="edit_file", reason="changes a file"))
    view(PermissionDecision(call_id="c1", name="edit_file", decision="ask", final="allow", decided_by="user"))
    view(ToolCallEnd(call_id="c1", name="edit_file", ok=True, output="ok", summary="edited src/x.py +1 -1",
                     duration_ms=4000, display={"diff": DIFF}))
    view.sync()
    assert output(c) == "✓ edit_file(src/x.py) · edited src/x.py +1 -1\n"   # no diff, no approval wait time
