"""The REPL's event consumer: streams the answer and shows running tools without flicker.

Finished markdown blocks are printed once, for good (``split_committed``); only the open tail of
the answer and the running tools (spinner + elapsed time) live in a small transient ``rich.Live``
region at the bottom, cropped to the terminal height, so nothing is ever repeated or redrawn
above it. Without a terminal there is no live region: blocks and tool lines are printed as plain
text when they finish.

Everything is drawn by one render thread that takes events from a queue: the agent's thread
(which receives Ctrl-C as ``KeyboardInterrupt``) only enqueues, so an interrupt can never land in
the middle of a terminal write and leave the live region half drawn. Tool worker threads enqueue
too, so output keeps event order. ``sync`` waits until everything queued so far is drawn.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.live import Live
from rich.segment import Segment
from rich.spinner import Spinner
from rich.text import Text

from axon_cli.app.ui.render import (
    RenderThread,
    print_error,
    print_notice,
    print_todos,
    print_tool_end,
    running_line,
    split_committed,
    tool_label,
)
from axon_cli.kernel.events import (
    ApprovalRequested,
    AssistantDelta,
    AssistantMessage,
    Compacted,
    Error,
    Notice,
    PermissionDecision,
    Retrying,
    SubagentUpdate,
    TodoUpdated,
    ToolCallBegin,
    ToolCallEnd,
    TurnComplete,
    TurnStarted,
    Usage,
)

__all__ = ["StreamView"]


def _markdown(text: str) -> RenderableType:
    """``rich.markdown.Markdown`` (markdown-it and its rules load with the first answer, not before
    the prompt)."""
    from rich.markdown import Markdown

    return Markdown(text)


class _Tail:
    """Renders its content and keeps only the last ``max_lines`` lines (the live region's cap)."""

    def __init__(self, renderable: RenderableType, max_lines: int) -> None:
        self.renderable = renderable
        self.max_lines = max(1, max_lines)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.renderable, options, pad=False)
        for line in lines[-self.max_lines:]:
            yield from line
            yield Segment.line()


class StreamView(RenderThread):
    """Subscribe to ``rt.bus``; call ``pause()`` before reading the keyboard, ``end_turn()`` after."""

    def __init__(self, console: Console, live: bool | None = None) -> None:
        self.console = console
        self.live_enabled = console.is_terminal if live is None else live
        self.markdown = console.is_terminal
        self.cost_usd: float | None = None
        self._tail = ""
        self._blocks = 0
        self._waiting = False
        self._running: dict[str, tuple[str, float, Spinner]] = {}
        self._labels: dict[str, str] = {}
        self._asked: set[str] = set()
        self._todos: list[dict[str, Any]] | None = None
        self._live: Live | None = None
        self._paused = False
        self._thinking = Spinner("dots", text=Text("thinking…  (Ctrl-C to stop)", "dim"), style="cyan")
        super().__init__()

    # -- events -----------------------------------------------------------------------------
    def _on_turn_started(self, event: TurnStarted) -> None:
        self._waiting = True
        self._ensure_live()

    def _on_assistant_delta(self, event: AssistantDelta) -> None:
        if event.kind != "text":
            return
        self._waiting = False
        done, self._tail = split_committed(self._tail + event.text)
        if done.strip():
            self._print_block(done)
        self._ensure_live()

    def _on_assistant_message(self, event: AssistantMessage) -> None:
        self._waiting = False
        self._flush_text()

    def _on_tool_call_begin(self, event: ToolCallBegin) -> None:
        summary = event.summary
        if not summary and isinstance(event.arguments, dict):
            summary = next((str(v) for v in event.arguments.values() if isinstance(v, (str, int, float))), "")
        label = tool_label(event.name, summary)
        self._labels[event.call_id] = label
        self._running[event.call_id] = (label, time.monotonic(), Spinner("dots", style="cyan"))
        self._ensure_live()

    def _on_approval_requested(self, event: ApprovalRequested) -> None:
        self._asked.add(event.call_id)
        self._pause_now()

    def _on_permission_decision(self, event: PermissionDecision) -> None:
        entry = self._running.get(event.call_id)
        if entry is not None and event.outside_sandbox and event.final == "allow":
            label = f"{entry[0]} · outside the sandbox"
            self._labels[event.call_id] = label
            entry = self._running[event.call_id] = (label, entry[1], entry[2])
        if entry is not None and event.call_id in self._asked:   # time the run, not the question
            self._running[event.call_id] = (entry[0], time.monotonic(), entry[2])
        self._resume_now()

    def _on_tool_call_end(self, event: ToolCallEnd) -> None:
        entry = self._running.pop(event.call_id, None)
        label = self._labels.pop(event.call_id, tool_label(event.name, ""))
        duration = event.duration_ms
        if entry is not None:
            duration = min(duration, int((time.monotonic() - entry[1]) * 1000))
        asked = event.call_id in self._asked
        self._asked.discard(event.call_id)
        # an approved change was just shown in the question: do not repeat its diff
        print_tool_end(self.console, event.name, label, event.ok, event.summary, event.output,
                       duration, {} if asked else event.display, event.spill_path)

    def _on_subagent_update(self, event: SubagentUpdate) -> None:
        """A ``task`` call's one line shows its sub-agent's progress (its calls are not shown)."""
        entry = self._running.get(event.parent_call_id)
        base = self._labels.get(event.parent_call_id)
        if entry is None or base is None:
            return
        progress = f"{event.tool_calls} tool call{'s' if event.tool_calls != 1 else ''}"
        if event.last_action:
            progress += f" · {event.last_action}"
        self._running[event.parent_call_id] = (f"{base} · {progress}"[:110], entry[1], entry[2])

    def _on_todo_updated(self, event: TodoUpdated) -> None:
        if event.todos != self._todos:
            self._todos = list(event.todos)
            print_todos(self.console, event.todos)

    def _on_usage(self, event: Usage) -> None:
        if event.cost_usd is not None:
            self.cost_usd = event.cost_usd

    def _on_notice(self, event: Notice) -> None:
        print_notice(self.console, event.message)

    def _on_retrying(self, event: Retrying) -> None:
        print_notice(self.console, f"retrying ({event.attempt}/{event.max_attempts}) in "
                                   f"{event.delay_s:.1f} s: {event.reason}")

    def _on_compacted(self, event: Compacted) -> None:
        print_notice(self.console, f"compacted the history ({event.method}): "
                                   f"{event.before_tokens} → {event.after_tokens} tokens")

    def _on_error(self, event: Error) -> None:
        self._flush_text()
        print_error(self.console, event.message)

    def _on_turn_complete(self, event: TurnComplete) -> None:
        self._end_turn_now()
        if event.stop_reason == "interrupted":
            self.console.print(Text("⏹ interrupted — your next message continues the conversation",
                                    "yellow"))
        elif event.stop_reason == "max_turns":
            print_notice(self.console, event.result)

    # -- output -----------------------------------------------------------------------------
    def _print_block(self, text: str) -> None:
        if self._blocks:
            self.console.print()
        self._blocks += 1
        if self.markdown:
            self.console.print(_markdown(text.strip("\n")))
        else:
            self.console.print(Text(text.strip("\n")), soft_wrap=True)

    def _flush_text(self) -> None:
        """Print whatever of the answer is still open, and start a new message."""
        tail, self._tail = self._tail, ""
        if tail.strip():
            self._print_block(tail)
        self._blocks = 0

    def _end_turn_now(self) -> None:
        self._waiting = False
        self._flush_text()
        self._running.clear()
        self._labels.clear()
        self._asked.clear()
        self._stop_live()
        self._paused = False

    def _pause_now(self) -> None:
        self._paused = True
        self._stop_live()

    def _resume_now(self) -> None:
        self._paused = False
        if self._running or self._waiting:
            self._ensure_live()

    def end_turn(self) -> None:
        """Draw everything queued, stop the live region, print the rest of the answer."""
        self.sync(self._end_turn_now)

    def pause(self) -> None:
        """Draw everything queued and hide the live region (before a prompt reads the keyboard)."""
        self.sync(self._pause_now)

    def resume(self) -> None:
        self.sync(self._resume_now)

    # -- the live region --------------------------------------------------------------------
    def _ensure_live(self) -> None:
        if not self.live_enabled or self._paused or self._live is not None:
            return
        self._live = Live(console=self.console, get_renderable=self._renderable, refresh_per_second=10,
                          transient=True, redirect_stdout=False, redirect_stderr=False,
                          vertical_overflow="crop")
        self._live.start()

    def _stop_live(self) -> None:
        live, self._live = self._live, None
        if live is not None:
            with contextlib.suppress(Exception):  # never let the terminal cleanup break a turn
                live.stop()

    def _renderable(self) -> RenderableType:
        """Called by the live region's refresh thread: reads a snapshot, takes no lock."""
        tail = self._tail
        running = list(dict(self._running).values())
        parts: list[RenderableType] = []
        max_lines = max(3, self.console.height - 4 - len(running))
        if tail.strip():
            parts.append(_Tail(_markdown(tail) if self.markdown else Text(tail), max_lines))
        now = time.monotonic()
        for label, started, spinner in running:
            spinner.update(text=running_line(label, now - started))
            parts.append(spinner)
        if not parts and self._waiting:
            parts.append(self._thinking)
        return Group(*parts)
