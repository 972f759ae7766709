"""Pure rendering helpers for the REPL: each takes a rich ``Console`` and prints one thing.

They hold no state, so they are snapshot-tested against a fixed-width ``Console``. The stateful
part (what is streaming, which tools are running) lives in ``app/ui/stream.py``.

The render thread under ``stream.StreamView``: any thread queues events and callables, and one
thread handles them in order, so nothing but that thread writes to the terminal (``stream`` says why).

An event goes to the handler named after its type (``_on_tool_call_end`` for ``tool_call_end``), a
callable is called; an exception is logged, never raised, so a rendering bug cannot stop the output.
"""

from __future__ import annotations

import logging
import os
import queue
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from axon_cli.kernel.events import Event

__all__ = ["make_console", "tool_label", "tool_end_line", "print_tool_end", "diff_text", "print_diff", "todo_text", "print_todos", "print_error", "print_notice", "split_committed", "toolbar_text", "fmt_duration", "fmt_tokens", "running_line", "MAX_DIFF_LINES", "RenderThread"]

log = logging.getLogger("axon.ui")



class RenderThread:
    """The base of an event consumer that draws: ``self(event)`` queues, ``sync`` waits for the queue."""

    def __init__(self) -> None:
        self._queue: queue.Queue[Event | Callable[[], None]] = queue.Queue()
        self._thread = threading.Thread(target=self._work, daemon=True, name="axon-render")
        self._thread.start()

    def __call__(self, event: Event) -> None:
        self._queue.put(event)

    def _work(self) -> None:
        # imported here: the chat draws its prompt without the core
        from axon_cli.kernel.events import Event

        while True:
            item = self._queue.get()
            try:
                if isinstance(item, Event):
                    handler = getattr(self, f"_on_{item.type}", None)
                    if handler is not None:
                        handler(item)
                else:
                    item()
            except Exception:  # a rendering bug must never kill the output
                log.exception("rendering failed")

    def sync(self, fn: Callable[[], None] | None = None) -> None:
        """Run ``fn`` on the render thread after everything queued so far, and wait for it."""
        if threading.current_thread() is self._thread:
            if fn is not None:
                fn()
            return
        done = threading.Event()

        def step() -> None:
            try:
                if fn is not None:
                    fn()
            finally:
                done.set()

        self._queue.put(step)
        while not done.wait(0.05):
            if not self._thread.is_alive():
                return

MAX_DIFF_LINES = 60

_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")

_FENCE = re.compile(r"^\s{0,3}(```|~~~)")

_HAS_TIME = re.compile(r"\d(?:\.\d+)?\s?(?:s|ms)\b")



def make_console(**kw: Any) -> Console:
    """The REPL's console: colour on a terminal, plain text elsewhere (rich honours NO_COLOR)."""
    return Console(highlight=False, soft_wrap=False, **kw)



def fmt_duration(ms: int) -> str:
    if ms < 1000:
        return f"{ms} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    return f"{ms // 60_000} min {ms % 60_000 // 1000} s"



def fmt_tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)



def tool_label(name: str, summary: str, width: int = 70) -> str:
    """``bash(ls -la)``: the tool and its key argument, on one line, cut to ``width``."""
    arg = " ".join(summary.split())
    label = f"{name}({arg})" if arg else name
    return label if len(label) <= width else label[: width - 2] + "…)"



def running_line(label: str, elapsed_s: float) -> Text:
    """The text beside a running tool's spinner."""
    return Text.assemble((label, "bold"), (f"  {elapsed_s:.1f} s", "dim"))



def _is_denial(output: str) -> bool:
    return output.startswith("Permission denied")



def tool_end_line(name: str, label: str, ok: bool, summary: str, output: str, duration_ms: int) -> Text:
    """One line for a finished call: ✓ success, ✗ error, ⊘ denied by a rule or the user."""
    if _is_denial(output):
        why = output.split("\n", 1)[0].removeprefix("Permission denied").lstrip(": ")
        return Text.assemble(("⊘ ", "bold yellow"), (label, "yellow"), (" denied", "bold yellow"),
                             (f": {why}" if why else "", "yellow"))
    mark, style = ("✓ ", "green") if ok else ("✗ ", "bold red")
    text = Text.assemble((mark, style), (label, "bold" if ok else "red"))
    detail = summary or ("" if ok else output.split("\n", 1)[0].removeprefix("Error: "))
    if not ok and summary:   # the summary is cut (at 100 chars, or a "…:" heading): show the message
        full = " ".join(output.split()).removeprefix("Error: ")
        if full.startswith(summary.removeprefix("Error: ")):
            detail = full
    if detail:
        text.append(f" · {detail[:240]}", "dim" if ok else "red")
    if duration_ms >= 1000 and not _HAS_TIME.search(detail):
        text.append(f" ({fmt_duration(duration_ms)})", "dim")
    return text



def print_tool_end(console: Console, name: str, label: str, ok: bool, summary: str, output: str,
                   duration_ms: int, display: dict[str, Any] | None = None, spill_path: str | None = None) -> None:
    """The summary line of a finished call, where a long output was saved, and its diff when the
    tool changed a file."""
    console.print(tool_end_line(name, label, ok, summary, output, duration_ms), overflow="ellipsis",
                  no_wrap=True)
    if spill_path:
        console.print(Text(f"  output truncated; full text in {_relative(spill_path)}", "dim"))
    diff = (display or {}).get("diff")
    if ok and isinstance(diff, str) and diff.strip():
        print_diff(console, diff)



def _relative(path: str) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return path



def diff_text(diff: str, max_lines: int = MAX_DIFF_LINES) -> Text:
    """A unified diff, coloured line by line (additions green, removals red, hunks cyan)."""
    lines = diff.rstrip("\n").split("\n")
    shown, hidden = lines[:max_lines], len(lines) - max_lines
    text = Text()
    for line in shown:
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        else:
            style = "dim"
        text.append("  " + line + "\n", style)
    if hidden > 0:
        text.append(f"  … {hidden} more diff lines\n", "dim")
    text.rstrip()
    return text



def print_diff(console: Console, diff: str, max_lines: int = MAX_DIFF_LINES) -> None:
    console.print(diff_text(diff, max_lines), overflow="ellipsis", no_wrap=True)

_TODO_MARKS = {"done": ("☑ ", "dim"), "completed": ("☑ ", "dim"), "in_progress": ("◐ ", "bold cyan")}



def todo_text(todos: list[dict[str, Any]]) -> Text:
    """The todo list as a checklist: ☐ pending, ◐ in progress, ☑ done."""
    text = Text("Todo\n", "bold")
    for item in todos:
        status = str(item.get("status", "pending"))
        mark, style = _TODO_MARKS.get(status, ("☐ ", ""))
        content = str(item.get("content") or item.get("text") or "")
        text.append("  " + mark, style)
        text.append(content + "\n", style + (" strike" if status in ("done", "completed") else ""))
    text.rstrip()
    return text



def print_todos(console: Console, todos: list[dict[str, Any]]) -> None:
    console.print(todo_text(todos))



def print_error(console: Console, message: str) -> None:
    first = message.strip().split("\n", 1)[0] or "unknown error"
    console.print(Text.assemble(("✗ error: ", "bold red"), (first, "red")))



def print_notice(console: Console, message: str) -> None:
    console.print(Text(f"· {message}", "dim yellow"))



def split_committed(text: str) -> tuple[str, str]:
    """Split streamed markdown into finished blocks (safe to print for good) and the open tail.

    A block ends at a blank line outside a code fence, once the next line is complete and does not
    continue a list or an indented block (so loose lists and code stay whole).
    """
    lines = text.split("\n")
    in_fence = False
    cut = 0
    offset = 0
    for i, line in enumerate(lines[:-1]):      # the last element is an unfinished line
        offset += len(line) + 1
        if _FENCE.match(line):
            in_fence = not in_fence
            if not in_fence:
                cut = offset                  # a closed fence ends a block
            continue
        if in_fence or line.strip():
            continue
        if i + 2 < len(lines):                # the next line is complete
            nxt = lines[i + 1]
            if nxt.strip() and not _LIST_ITEM.match(nxt) and not nxt.startswith((" ", "\t")):
                cut = offset
    return text[:cut], text[cut:]



def toolbar_text(model: str, mode: str, used_tokens: int, window: int, cost: str) -> str:
    """``model · mode · context 12% (15.2k/128.0k) · $0.0123`` for the prompt's bottom toolbar."""
    pct = min(100, round(100 * used_tokens / window)) if window else 0
    parts = [model, f"mode {mode}", f"context {pct}% ({fmt_tokens(used_tokens)}/{fmt_tokens(window)})"]
    if cost:
        parts.append(cost)
    return " · ".join(parts)
