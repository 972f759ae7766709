"""Session transcripts: ``.axon/sessions/<id>.jsonl``, appended line by line as the session happens.

Line format (one JSON object a line, masked):

- a message: the chat message itself (``{"role": ..., ...}``), in the order it joined the history;
- a meta line: ``{"type": "meta", "kind": ..., ...}`` — ``session`` (header), ``turn`` (a user turn
  begins; snapshots for undo hang off its number; ``asked``: the user's words when the turn's message
  also holds attached files), ``usage`` (one model request's tokens), ``mode``,
  ``tools`` (activated deferred tools), ``todos``, ``system`` (the system prompt was refreshed),
  ``compaction`` (the history the model sees from here on: ints refer to earlier message lines,
  objects are new messages such as elision notes and summaries).

Every line is written whole with one ``write`` call, so a SIGKILL loses at most the line in flight;
a partial or corrupt line is skipped on load (a torn last line is counted in ``torn_tail``), and the
next append starts on a new line. One process writes a session at a time: it holds the session's
lock (``session_lock``) from its first write, and a write while another process holds it is a
``SessionInUse`` error. The transcript keeps the full history; compaction only
changes the *view* that resuming restores.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from axon_cli.kernel.errors import AxonError, ConfigError, UsageError
from axon_cli.kernel.json_lines import int_or_zero, line_object, valid_message
from axon_cli.kernel.state import ensure_state_dir
from axon_cli.machinery.masking.written import masked_value as mask_value
from axon_cli.session.conversation.session_lock import hold, release

__all__ = [
    "Transcript", "LoadedTranscript", "SessionInfo", "new_session_id", "load_transcript",
    "list_sessions", "latest_session_id", "resolve_session_id", "repair_tool_pairs",
    "mask_value", "sessions_dir", "INTERRUPTED_RESULT", "valid_message", "MAX_TRANSCRIPT_BYTES",
    "SessionInUse", "fork_session",
]

META_PREFIX = '{"type": "meta"'
MAX_SCAN_LINE = 1 << 20
MAX_TRANSCRIPT_BYTES = 512 * 1024 * 1024   # a larger session file is not resumed (one line says so)
INTERRUPTED_RESULT = "Error: interrupted (the session ended before this call finished)"


class SessionInUse(AxonError):
    """Another live process holds the session (it is writing its transcript)."""

    def __init__(self, session_id: str, pid: int) -> None:
        self.session_id, self.pid = session_id, pid
        by = f"another axon (pid {pid})" if pid else "another axon process"
        super().__init__(f"session {session_id} is in use by {by}; wait until it ends, or start a new "
                         "session (without --resume/--continue)")


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def sessions_dir(state_dir: Path) -> Path:
    return state_dir / "sessions"


class Transcript:
    """Appends lines to one session file. Nothing is written before the first user message, so a
    session that was opened and closed without a prompt leaves no file behind."""

    def __init__(self, state_dir: Path, session_id: str, *, exists: bool = False) -> None:
        self.state_dir = state_dir
        self.session_id = session_id
        self.path = sessions_dir(state_dir) / f"{session_id}.jsonl"
        self.message_count = 0            # message lines so far (their indexes in compaction views)
        self._pending: list[str] | None = None if exists else []
        self._holding = False             # this object holds the session's lock (session_lock)

    def append(self, message: dict[str, Any]) -> int:
        """Write one message; returns its index among the session's message lines."""
        if self._pending is not None and message.get("role") == "user":
            pending, self._pending = self._pending, None
            self._write(pending + [json.dumps(mask_value(message), ensure_ascii=False)])
        else:
            self._write([json.dumps(mask_value(message), ensure_ascii=False)])
        self.message_count += 1
        return self.message_count - 1

    def meta(self, kind: str, **data: Any) -> None:
        line = {"type": "meta", "kind": kind, **data}
        self._write([json.dumps(mask_value(line), ensure_ascii=False)])

    def _write(self, lines: list[str]) -> None:
        if self._pending is not None:
            self._pending.extend(lines)
            return
        if not lines:
            return
        ensure_state_dir(self.state_dir)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.claim()
        # A lone surrogate (a file name that is not UTF-8, a model's "\\udc80") can only sit inside a
        # JSON string, where its backslash escape reads back as the same character: valid JSON always.
        data = ("\n".join(lines) + "\n").encode("utf-8", "backslashreplace")
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":   # a line torn by a crash: start a new one
                data = b"\n" + data
            while data:
                data = data[os.write(fd, data):]
        finally:
            os.close(fd)

    def claim(self) -> None:
        """Hold the session for this process now (resuming): ``SessionInUse`` if another one does."""
        if self._holding:
            return
        if (pid := hold(self.path)) is not None:
            raise SessionInUse(self.session_id, pid)
        self._holding = True

    def release(self) -> None:
        if self._holding:
            self._holding = False
            release(self.path)


def fork_session(state_dir: Path, session_id: str) -> str:
    """A new session holding a copy of ``session_id``'s transcript as it is now (its holder may be
    mid-turn: an unanswered call reads back as interrupted); the new id (nobody else knows it yet)."""
    source = sessions_dir(state_dir) / f"{session_id}.jsonl"
    with open(source, "rb") as fh:
        data = fh.read(MAX_TRANSCRIPT_BYTES + 1)
    if len(data) > MAX_TRANSCRIPT_BYTES:
        raise ConfigError(f"{source}: larger than {MAX_TRANSCRIPT_BYTES >> 20} MiB; not resumed")
    fork = Transcript(state_dir, new_session_id(), exists=True)
    cut = data.rfind(b"\n") + 1                      # whole lines only: the holder may be writing one
    fd = os.open(fork.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)[:cut]
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    return fork.session_id


@dataclass
class LoadedTranscript:
    messages: list[dict[str, Any]]          # the view to resume with (compactions applied, pairs repaired)
    message_count: int = 0                  # message lines in the file
    turns: int = 0
    mode: str | None = None
    activated: list[str] = field(default_factory=list)
    todos: list[dict[str, Any]] | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    started: str = ""
    first_prompt: str = ""                  # the user's words of the first turn
    skipped_lines: int = 0
    torn_tail: bool = False                 # the last line was cut off mid-write (a crash): dropped
    indexes: dict[int, int] = field(default_factory=dict)   # id(message) -> its line index


def load_transcript(path: Path) -> LoadedTranscript:
    """Read a transcript; partial or corrupt lines (a crash mid-write, or a file someone else wrote:
    not JSON, nested too deeply, not a message of the chat shape) are skipped. A file larger than
    ``MAX_TRANSCRIPT_BYTES`` or unreadable is one ConfigError naming it."""
    all_messages: list[dict[str, Any]] = []
    view: list[dict[str, Any]] = []
    out = LoadedTranscript(messages=view)
    with open(path, "rb") as fh:
        data = fh.read(MAX_TRANSCRIPT_BYTES + 1)
    if len(data) > MAX_TRANSCRIPT_BYTES:
        raise ConfigError(f"{path}: larger than {MAX_TRANSCRIPT_BYTES >> 20} MiB; not resumed")
    raw_lines = data.decode("utf-8", "replace").split("\n")
    out.torn_tail = bool(raw_lines[-1].strip()) and line_object(raw_lines[-1]) is None
    for raw in raw_lines:
        if not raw.strip():
            continue
        obj = line_object(raw)
        if obj is None:
            out.skipped_lines += 1
        elif obj.get("type") == "meta":
            view = _apply_meta(obj, out, all_messages, view)
        elif not valid_message(obj):
            out.skipped_lines += 1
        else:
            all_messages.append(obj)
            view.append(obj)
            if not out.first_prompt and obj["role"] == "user" and isinstance(obj.get("content"), str):
                out.first_prompt = obj["content"]
    out.messages = repair_tool_pairs(view)
    out.message_count = len(all_messages)
    in_view = {id(m) for m in out.messages}
    out.indexes = {id(m): i for i, m in enumerate(all_messages) if id(m) in in_view}
    return out


def _apply_meta(obj: dict[str, Any], out: LoadedTranscript, all_messages: list[dict[str, Any]],
                view: list[dict[str, Any]]) -> list[dict[str, Any]]:
    kind = obj.get("kind")
    if kind == "session":
        out.started = str(obj.get("started", ""))
    elif kind == "turn":
        out.turns = max(out.turns, int_or_zero(obj.get("n", out.turns + 1)))
        if not out.first_prompt and isinstance(obj.get("asked"), str):
            out.first_prompt = obj["asked"]
    elif kind == "usage":
        out.prompt_tokens += int_or_zero(obj.get("prompt_tokens", 0))
        out.completion_tokens += int_or_zero(obj.get("completion_tokens", 0))
    elif kind == "mode":
        out.mode = str(obj.get("mode"))
    elif kind == "tools" and isinstance(obj.get("activated"), list):
        out.activated = [n for n in obj["activated"] if isinstance(n, str)]
    elif kind == "todos" and isinstance(obj.get("todos"), list):
        out.todos = [t for t in obj["todos"] if isinstance(t, dict)]
    elif kind == "system" and view and view[0].get("role") == "system":
        view = [{"role": "system", "content": str(obj.get("content", ""))}, *view[1:]]
    elif kind == "compaction" and isinstance(obj.get("view"), list):
        new_view: list[dict[str, Any]] = []
        for item in obj["view"]:
            if isinstance(item, int) and 0 <= item < len(all_messages):
                new_view.append(all_messages[item])
            elif isinstance(item, dict) and valid_message(item):
                new_view.append(item)
        view = new_view
    return view


def repair_tool_pairs(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every assistant tool call answered exactly once, right after it; stray tool results dropped.

    A session killed while tools ran has calls without results: they get an "interrupted" answer,
    so the resumed history is one the API accepts.
    """
    out: list[dict[str, Any]] = []
    open_ids: list[str] = []

    def close_open() -> None:
        for call_id in open_ids:
            out.append({"role": "tool", "tool_call_id": call_id, "content": INTERRUPTED_RESULT})
        open_ids.clear()

    for msg in messages:
        role = msg.get("role")
        if role == "tool":
            call_id = msg.get("tool_call_id")
            if call_id in open_ids:
                open_ids.remove(call_id)
                out.append(msg)
            continue
        close_open()
        out.append(msg)
        if role == "assistant":
            open_ids.extend(str(c.get("id")) for c in msg.get("tool_calls") or [] if isinstance(c, dict))
    close_open()
    return out


@dataclass
class SessionInfo:
    id: str
    started: str
    first_prompt: str                       # the user's words of the first turn (without attached files)
    turns: int
    tokens: int
    path: Path


def _scan(path: Path) -> SessionInfo | None:
    """The listing facts of one session, reading only meta lines and its first user message."""
    started, first_prompt, turns, tokens = "", "", 0, 0
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            while line := fh.readline(MAX_SCAN_LINE):     # a longer line is read in pieces, skipped
                if line.startswith(META_PREFIX):
                    if (obj := line_object(line)) is None:
                        continue
                    kind = obj.get("kind")
                    if kind == "session":
                        started = str(obj.get("started", ""))
                    elif kind == "turn":
                        turns += 1
                        if not first_prompt and isinstance(asked := obj.get("asked"), str):
                            first_prompt = asked
                    elif kind == "usage":
                        tokens += int_or_zero(obj.get("prompt_tokens", 0)) + int_or_zero(obj.get("completion_tokens", 0))
                elif not first_prompt and line.startswith('{"role": "user"'):
                    if (obj := line_object(line)) is None:
                        continue
                    content = obj.get("content")
                    first_prompt = content if isinstance(content, str) else ""
    except OSError:
        return None
    if not first_prompt and not turns:
        return None
    if not started:
        started = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(path.stat().st_mtime))
    return SessionInfo(path.stem, started, first_prompt, turns, tokens, path)


def list_sessions(state_dir: Path) -> list[SessionInfo]:
    """This project's sessions, most recently active first."""
    folder = sessions_dir(state_dir)
    if not folder.is_dir():
        return []
    paths = sorted(folder.glob("*.jsonl"), key=lambda p: (p.stat().st_mtime, p.name), reverse=True)
    return [info for p in paths if (info := _scan(p)) is not None]


def latest_session_id(state_dir: Path) -> str | None:
    folder = sessions_dir(state_dir)
    if not folder.is_dir():
        return None
    paths = sorted(folder.glob("*.jsonl"), key=lambda p: (p.stat().st_mtime, p.name), reverse=True)
    for p in paths:
        if _scan(p) is not None:
            return p.stem
    return None


def unreadable_sessions(state_dir: Path) -> list[Path]:
    """Session files that hold no readable session (no valid meta line): skipped by the listings."""
    folder = sessions_dir(state_dir)
    return sorted(p for p in folder.glob("*.jsonl") if _scan(p) is None) if folder.is_dir() else []


def resolve_session_id(state_dir: Path, wanted: str) -> str:
    """A full id or a unique prefix of one; a UsageError otherwise."""
    wanted = wanted.strip()
    folder = sessions_dir(state_dir)
    names = sorted(p.stem for p in folder.glob("*.jsonl")) if folder.is_dir() else []
    if wanted in names:
        return wanted
    matches = [n for n in names if wanted and n.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise UsageError(f"session id '{wanted}' is ambiguous ({len(matches)} sessions match); "
                         "give more of it (see `axon sessions`)")
    raise UsageError(f"no session '{wanted}' in this project (see `axon sessions`)")
