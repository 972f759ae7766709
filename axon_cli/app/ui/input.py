"""The REPL's input line: prompt_toolkit session, key bindings, completion, ``@path`` mentions.

Enter sends; Alt-Enter (Esc Enter) or Ctrl-J inserts a newline; a bracketed paste stays one
message; Ctrl-R searches the history kept in ``.axon/history``; Ctrl-C clears a non-empty line
(on an empty one it raises ``KeyboardInterrupt``); Ctrl-D on an empty line raises ``EOFError``.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from prompt_toolkit.completion import Completer, Completion

__all__ = ["ReplCompleter", "make_session", "project_files"]

MAX_FILES = 5000
SKIP_DIRS = {".git", ".axon", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".ruff_cache",
             ".pytest_cache", "dist", "build", ".tox", ".idea", ".cache", "target"}


def project_files(root: Path, limit: int = MAX_FILES) -> list[str]:
    """Project-relative file paths, skipping VCS, caches and virtualenvs; at most ``limit``."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        rel = os.path.relpath(dirpath, root)
        for name in sorted(filenames):
            found.append(name if rel == "." else os.path.join(rel, name))
            if len(found) >= limit:
                return found
    return found


class ReplCompleter(Completer):
    """Completes ``/commands`` at the start of the input and ``@paths`` anywhere."""

    def __init__(self, root: Path, commands: Callable[[], Iterable[tuple[str, str]]]) -> None:
        self.root = root
        self.commands = commands
        self._files: list[str] = []
        self._files_at = 0.0

    def _all_files(self) -> list[str]:
        if time.monotonic() - self._files_at > 10:
            self._files = project_files(self.root)
            self._files_at = time.monotonic()
        return self._files

    def get_completions(self, document: Any, complete_event: Any) -> Iterator[Completion]:
        before = document.text_before_cursor
        if before.startswith("/") and " " not in before:
            for name, help_text in self.commands():
                if name.startswith(before[1:]):
                    yield Completion("/" + name, start_position=-len(before), display_meta=help_text)
            return
        m = re.search(r"(?:^|\s)@([^\s@]*)$", before)
        if not m:
            return
        prefix = m.group(1)
        files = self._all_files()
        starts = [f for f in files if f.startswith(prefix)]
        inside = [f for f in files if prefix.lower() in f.lower() and not f.startswith(prefix)]
        for path in (starts + inside)[:50]:
            yield Completion("@" + path, start_position=-len(prefix) - 1)


def _bindings(cycle_mode: Callable[[], None] | None = None) -> Any:
    from prompt_toolkit.filters import has_completions, has_focus
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.key_binding.key_processor import KeyPressEvent
    from prompt_toolkit.keys import Keys

    kb = KeyBindings()
    default = has_focus("DEFAULT_BUFFER")

    @kb.add("enter", filter=default)
    def _send(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        state = buf.complete_state
        if state is not None and state.current_completion is not None:
            buf.apply_completion(state.current_completion)
            return
        buf.validate_and_handle()

    @kb.add("escape", "enter", filter=default)
    @kb.add("c-j", filter=default)
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @kb.add("c-c", filter=default)
    def _interrupt(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        if buf.text:
            buf.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt(), style="class:aborting")

    if cycle_mode is not None:
        @kb.add("s-tab", filter=default & ~has_completions)
        def _cycle(event: KeyPressEvent) -> None:
            """Shift-Tab: the next permission mode; the prompt line shows it at once (with the
            completion menu open it still moves to the previous completion)."""
            cycle_mode()
            event.app.invalidate()

    @kb.add(Keys.BracketedPaste)
    def _paste(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text(event.data.replace("\r\n", "\n").replace("\r", "\n"))

    return kb


def make_session(history_file: Path, completer: Any, toolbar: Callable[[], Any],
                 cycle_mode: Callable[[], None] | None = None) -> Any:
    """A multi-line prompt session with per-project history and the REPL's key bindings
    (``cycle_mode``: what Shift-Tab does)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    try:
        history: Any = FileHistory(str(history_file))
        history_file.touch(exist_ok=True)
    except OSError:
        history = InMemoryHistory()
    return PromptSession(history=history, completer=completer, complete_while_typing=True, multiline=True,
                         key_bindings=_bindings(cycle_mode), bottom_toolbar=toolbar, prompt_continuation="… ",
                         enable_history_search=False, reserve_space_for_menu=6)
