"""``Session``: an axon session inside a Python program, one prompt after another.

It is the session ``axon run`` opens, built the same way from the same settings: the project's
config and permission files, folder trust (an untrusted folder's widening files wait; ``trust=True``
is ``--trust``), the sandbox, secret masking, the modes and undo all apply unchanged. Only the
frontend differs: events are collected instead of printed, and a call that asks goes to the
``approve`` callback (``sdk.approval``). Nothing here prints or reads the terminal.

axon works in the project's directory, as the CLI does: while a session is being built or runs a
prompt, the process's working directory is its ``cwd`` (restored afterwards), so sessions of one
process take turns (a process-wide lock).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from axon_cli.app.sdk.approval import Approve, CallbackApprover
from axon_cli.app.sdk.result import Result
from axon_cli.kernel.events import Event

__all__ = ["Session"]

_CWD_LOCK = threading.RLock()


@contextmanager
def _working_in(cwd: Path) -> Iterator[None]:
    with _CWD_LOCK:
        before = os.getcwd()
        os.chdir(cwd)
        try:
            yield
        finally:
            os.chdir(before)


class Session:
    """A session in ``cwd`` (default: the current directory). ``mode``, ``model``, ``base_url``,
    ``api_key``, ``sandbox`` are ``axon run``'s flags; ``max_turns`` bounds each prompt; ``approve``
    answers calls that ask; ``tools`` are functions decorated with ``axon_cli.tool``; ``hooks`` maps a
    hook event (``PreToolUse``, ``PostToolUse``, ``UserPromptSubmit``, ``Stop``, …) to Python callables,
    or ``(matcher, callable)`` pairs, run like command hooks (``extend.hook_callables``); ``session_id``
    continues an earlier session of that project. Raises ``axon_cli.kernel.errors.AxonError`` (one line)
    for a bad setting, an unknown session or a sandbox that cannot work."""

    def __init__(self, cwd: str | os.PathLike[str] | None = None, *, mode: str = "default",
                 model: str | None = None, base_url: str | None = None, api_key: str | None = None,
                 max_turns: int | None = None, approve: Approve | None = None, tools: Iterable[Callable[..., Any]] = (),
                 session_id: str | None = None, sandbox: str | None = None, trust: bool = False,
                 hooks: Mapping[str, Iterable[Any]] | None = None) -> None:
        from axon_cli.kernel.errors import UsageError
        from axon_cli.kernel.state import find_project_root
        from axon_cli.session.runtime.opening import open_session
        from axon_cli.settings.config import load_settings

        where = Path(cwd if cwd is not None else os.getcwd()).resolve()
        if not where.is_dir():
            raise UsageError(f"cwd is not a directory: {where}")
        self.cwd = where
        self.max_turns = max_turns
        self.approver = CallbackApprover(approve)
        self._events: list[Event] = []          # every event of the session so far
        self._sent = 0                           # how many of them earlier prompts' results took
        self._running: int | None = None         # the thread running a prompt now
        self._listeners: list[Callable[[Event], Any]] = []
        self.closed = False
        flags = {"model": model, "base_url": base_url, "api_key": api_key, "mode": mode, "sandbox": sandbox}
        with _working_in(where):
            self.root = find_project_root(where)
            loaded = load_settings(self.root, flags=flags, trust_run=trust)
            _add_hooks(loaded.settings, hooks or {})
            self.runtime = open_session(loaded, self.root, self.approver, resume=session_id)
        self._add_tools(tools)
        self.runtime.bus.subscribe(self._collect)

    @property
    def session_id(self) -> str:
        return self.runtime.session_id

    def send(self, prompt: str) -> Result:
        """Run one prompt to its final answer (or error, turn limit, interruption)."""
        from axon_cli.kernel.errors import UsageError
        from axon_cli.session.conversation.attach import attach_mentions

        if self.closed:
            raise UsageError("this session is closed")
        first = self._sent
        rt, started = self.runtime, time.time()
        self._running = threading.get_ident()
        before, unreported = rt.llm.usage.counted(), rt.llm.usage.unreported
        with _working_in(self.cwd):
            turn, notes = attach_mentions(prompt, self.root, images_only=True)
            from axon_cli.kernel.events import Notice

            for note in notes:
                rt.bus(Notice(message=note))
            try:
                outcome = rt.agent.run(turn, max_turns=self.max_turns)
            except KeyboardInterrupt:            # a cancel that landed outside the loop's own handling
                from axon_cli.agent.loop.results import RunResult, repair_history

                repair_history(rt.agent)
                outcome = RunResult("interrupted by user", "interrupted", 0)
            finally:
                self._running = None
        usage = None if rt.llm.usage.unreported > unreported else _usage_since(before, rt.llm.usage.counted())
        events, self._sent = self._events[first:], len(self._events)
        return Result(result=outcome.result, is_error=outcome.stop_reason != "final", stop_reason=outcome.stop_reason,
                      session_id=rt.session_id, num_turns=outcome.num_turns, usage=usage,
                      changed_files=self._changed_since(started, events), events=events)

    def undo(self, turns: int = 1) -> list[str]:
        """Put back what the last ``turns`` prompts' turns changed; one line per file, as ``/undo``."""
        with _working_in(self.cwd):
            return self.runtime.undo(turns)

    def cancel(self) -> None:
        """Stop the running prompt from another thread, as Ctrl-C stops a chat turn: the running tool
        calls end and are answered, the model is not asked again, the session stays usable."""
        self.runtime.ctx.cancel.set()
        thread = self._running
        if thread is not None:
            _interrupt(thread)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with _working_in(self.cwd):
                self.runtime.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def unlisten(self, listener: Callable[[Event], Any]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def listen(self, listener: Callable[[Event], Any]) -> None:
        """Call ``listener`` with each event as it happens, after the ones not yet in a result (notices
        from opening the session); ``query`` streams through this."""
        for event in self._events[self._sent:]:
            listener(event)
        self._listeners.append(listener)

    def bind_loop(self, loop: asyncio.AbstractEventLoop | None) -> None:
        """Async ``approve`` callbacks run on ``loop`` (the caller's), where it is running."""
        self.approver.loop = loop

    def _collect(self, event: Event) -> None:
        self._events.append(event)
        for listener in list(self._listeners):
            listener(event)

    def _add_tools(self, tools: Iterable[Callable[..., Any]]) -> None:
        from axon_cli.kernel.errors import UsageError
        from axon_cli.session.extend.pytools import options_of, spec_for

        for fn in tools:
            options = options_of(fn)
            if options is None:
                raise UsageError(f"{getattr(fn, '__name__', fn)!r} is not decorated with axon_cli.tool")
            self.runtime.registry.register(spec_for(fn, options, source="sdk"))

    def _changed_since(self, started: float, events: list[Event]) -> list[str]:
        """Project-relative paths the prompt changed, from undo's records of this session's turns
        (edits and shell effects alike); without snapshots, the paths the file tools wrote."""
        snapshots = self.runtime.snapshots
        if snapshots is not None and snapshots.unavailable() is None:
            try:
                records = snapshots.records()
            except Exception:
                records = []
            files = [f for r in records if r.get("session") == self.session_id and r.get("at", 0) >= started - 1
                     for f in r.get("files") or []]
            if files:
                return sorted(set(files))
        from axon_cli.kernel.events import ToolCallBegin, ToolCallEnd

        paths = {e.call_id: e.arguments.get("path") for e in events
                 if isinstance(e, ToolCallBegin) and e.name in ("edit_file", "write_file")
                 and isinstance(e.arguments, dict)}
        return sorted({str(paths[e.call_id]) for e in events
                       if isinstance(e, ToolCallEnd) and e.ok and isinstance(paths.get(e.call_id), str)})


def _add_hooks(settings: Any, hooks: Mapping[str, Iterable[Any]]) -> None:
    """The caller's hook callables after the configured hooks of each event."""
    from axon_cli.kernel.errors import UsageError
    from axon_cli.session.extend.hook_callables import CallableHook
    from axon_cli.settings.config import HOOK_EVENTS

    events = HOOK_EVENTS
    for event, entries in hooks.items():
        if event not in events:
            raise UsageError(f"hooks: unknown hook event {event!r} (one of {', '.join(events)})")
        for entry in entries:
            matcher, fn = entry if isinstance(entry, tuple) else ("", entry)
            if not callable(fn) or not isinstance(matcher, str):
                raise UsageError(f"hooks[{event!r}]: each entry is a callable or a (matcher, callable) pair")
            settings.hooks.setdefault(event, []).append(CallableHook.of(fn, matcher))


def _interrupt(thread_id: int) -> None:
    """``KeyboardInterrupt`` in the thread running a prompt (at its next Python instruction): the loop
    ends the turn as after Ctrl-C, closing every open tool call."""
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(KeyboardInterrupt))


def _usage_since(before: dict[str, int], now: dict[str, int]) -> dict[str, int] | None:
    """This prompt's tokens; None when the server reported none (never a made-up 0)."""
    spent = {key: now.get(key, 0) - before.get(key, 0) for key in now}
    return spent if any(spent.values()) else None
