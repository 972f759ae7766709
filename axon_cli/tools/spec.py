"""The typed tool spec, the context a handler runs in, and what a handler returns."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel

from axon_cli.kernel.turn import ImagePart
from axon_cli.machinery.snapshots.basics import Checkpointer

if TYPE_CHECKING:
    from axon_cli.kernel.events import EventSink
    from axon_cli.policy.base import Decision
    from axon_cli.settings.config import Settings
    from axon_cli.tools.calls import CallFacts

__all__ = [
    "ToolSpec", "ToolContext", "ToolOutput", "ToolError", "Cancelled", "FileState", "Category",
    "InputT", "ToolCatalog", "CallEnv",
]

InputT = TypeVar("InputT", bound=BaseModel)

Category = Literal["read", "edit", "shell", "other"]
"""What a tool does, for the permission policy: reads files, changes files, runs commands, other."""


@dataclass(frozen=True)
class CallEnv:
    """What dispatch tells a handler about the one call it answers (``ToolContext.call``): its id and
    its final permission decision (the ``bash`` tool runs a call outside an ``auto`` sandbox only
    when that says ``outside_sandbox``). A handler called outside dispatch sees the empty default."""

    call_id: str = ""
    decision: Decision | None = None


class ToolError(Exception):
    """A failure the model should read as the tool's result ("Error: <message>")."""


class Cancelled(Exception):
    """The call was interrupted (Ctrl-C, or the turn was cancelled)."""


@dataclass
class ToolOutput:
    """What a handler returns. ``display`` carries structured extras for frontends (a diff, ...);
    ``images`` pictures for the model (the text names each one)."""

    text: str
    is_error: bool = False
    summary: str = ""
    display: dict[str, Any] = field(default_factory=dict)
    spill_path: str | None = None     # set by a handler that already spilled its full output
    found_nothing: bool = False       # a search or listing that worked and found nothing
    images: list[ImagePart] = field(default_factory=list)


@dataclass
class FileRecord:
    mtime_ns: int
    size: int
    sha256: str


class FileState:
    """What this session last read or wrote of each file (for read-before-edit and staleness)."""

    def __init__(self) -> None:
        self._records: dict[str, FileRecord] = {}
        self._lock = threading.Lock()

    def record(self, path: Path, mtime_ns: int, size: int, sha256: str) -> None:
        with self._lock:
            self._records[str(path)] = FileRecord(mtime_ns, size, sha256)

    def get(self, path: Path) -> FileRecord | None:
        with self._lock:
            return self._records.get(str(path))

    def forget(self, path: Path) -> None:
        with self._lock:
            self._records.pop(str(path), None)

    def paths(self) -> list[str]:
        with self._lock:
            return list(self._records)


class ToolCatalog(Protocol):
    """What a handler may see of the session's tools (``tool_search`` activates deferred ones);
    ``ToolRegistry`` implements it."""

    def all(self) -> list[ToolSpec[Any]]: ...

    def get(self, name: str) -> ToolSpec[Any] | None: ...

    def deferred(self) -> list[ToolSpec[Any]]: ...

    def is_active(self, name: str) -> bool: ...

    def activate(self, names: Iterable[str]) -> list[str]: ...


@dataclass
class ToolContext:
    """Everything a handler may use. Handlers never print and never read the keyboard."""

    project_root: Path
    state_dir: Path                   # <project>/.axon
    session_id: str
    settings: Settings
    file_state: FileState = field(default_factory=FileState)
    cancel: threading.Event = field(default_factory=threading.Event)
    emit: EventSink | None = None
    registry: ToolCatalog | None = None
    checkpointer: Checkpointer = field(default_factory=Checkpointer)
    extra: dict[str, Any] = field(default_factory=dict)
    call: CallEnv = field(default_factory=CallEnv)   # set per call by dispatch (``for_call``)
    mode: Callable[[], str] | None = None            # the permission mode in force, asked of its one owner

    def for_call(self, call: CallEnv) -> ToolContext:
        """This context for one call: the same session state (files read, cancel event, registry,
        extras: shared, not copied), with ``call`` set."""
        return dataclasses.replace(self, call=call)

    def resolve(self, path: str) -> Path:
        """A tool's path argument made absolute (relative to the project root, ``~`` expanded)."""
        p = Path(path).expanduser()
        if not p.is_absolute():
            p = self.project_root / p
        return Path(_normpath(str(p)))

    def relative(self, path: Path) -> str:
        """``path`` relative to the project root when inside it, else absolute."""
        try:
            return str(path.relative_to(self.project_root))
        except ValueError:
            return str(path)

    def check_cancelled(self) -> None:
        if self.cancel.is_set():
            raise Cancelled()


def _normpath(p: str) -> str:
    import os.path

    return os.path.normpath(p)


BoolFn = Callable[[Any], bool]


def _const(value: bool) -> BoolFn:
    return lambda _input: value


@dataclass
class ToolSpec(Generic[InputT]):
    """One tool: a pydantic input model (its JSON schema is what the model sees) and a handler.

    The facts ``is_read_only``, ``is_destructive`` and ``is_concurrency_safe`` depend on the input:
    ``bash("ls")`` is read-only, ``bash("rm -rf x")`` is destructive.
    """

    name: str
    description: str
    input_model: type[InputT]
    handler: Callable[[InputT, ToolContext], ToolOutput | str]
    category: Category = "other"
    is_read_only: Callable[[InputT], bool] = field(default=_const(False))
    is_destructive: Callable[[InputT], bool] = field(default=_const(False))
    is_concurrency_safe: Callable[[InputT], bool] | None = None   # default: same as is_read_only
    paths: Callable[[InputT], list[str]] = field(default=lambda _input: [])
    facts: Callable[[InputT], CallFacts] | None = None   # all the facts at once (computed together)
    summarize: Callable[[InputT], str] | None = None   # the key argument, for one-line displays
    preview: Callable[[InputT, ToolContext], str] | None = None  # what an approval prompt shows (a diff)
    check: Callable[[InputT, ToolContext], object] | None = None  # raises ToolError for a call the handler
                                      # would refuse (not read, stale, no unique match): checked before asking
    max_result_chars: int = 50_000
    deferred: bool = False
    listed: bool = True               # a deferred tool named in the system prompt (False: another tool
                                      # activates it, e.g. bash_output when the first job starts)
    timeout: float | None = None      # seconds; None = no limit imposed by dispatch
    short_description: str = ""       # one line, for deferred listings and compact prompts
    source: str = "builtin"           # "builtin" or "mcp:<server>"
    schema_override: dict[str, Any] | None = None   # a JSON schema used as is (MCP tools)

    def concurrency_safe(self, tool_input: InputT) -> bool:
        fn = self.is_concurrency_safe or self.is_read_only
        return bool(fn(tool_input))

    def one_line(self) -> str:
        return self.short_description or self.description.strip().splitlines()[0]

    def describe_call(self, tool_input: InputT) -> str:
        if self.summarize is not None:
            return self.summarize(tool_input)
        data = tool_input.model_dump(exclude_defaults=True)
        first = next(iter(data.values()), "")
        return str(first)[:120]

    def json_schema(self) -> dict[str, Any]:
        from axon_cli.tools.schema import model_schema

        if self.schema_override is not None:
            return self.schema_override
        return model_schema(self.input_model)

    def openai_tool(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.json_schema()},
        }
