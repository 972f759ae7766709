"""todo_write through dispatch: replaces the list, renders it, emits TodoUpdated, validates."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from axon_cli.kernel.events import Event, TodoUpdated
from axon_cli.settings.config import Settings
from axon_cli.tools.builtin.todo import TodoWriteInput
from axon_cli.tools.dispatch import CallResult, Dispatcher, ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext

IDS = itertools.count()


@pytest.fixture
def env(tmp_path: Path):  # type: ignore[no-untyped-def]
    registry = ToolRegistry.with_builtins()
    registry.activate(["todo_write"])
    events: list[Event] = []
    ctx = ToolContext(project_root=tmp_path, state_dir=tmp_path / ".axon", session_id="s",
                      settings=Settings(), registry=registry, emit=events.append)
    return Dispatcher(registry, ctx), ctx, events


def write(dispatcher: Dispatcher, todos: Any) -> CallResult:
    return dispatcher.dispatch(ToolCall(id=f"t{next(IDS)}", name="todo_write",
                                        arguments=json.dumps({"todos": todos})))


PLAN = [
    {"content": "read the failing test", "status": "done"},
    {"content": "fix the parser", "status": "in_progress", "id": "2"},
    {"content": "run the suite"},
]


def test_renders_checklist_stores_and_emits(env):
    dispatcher, ctx, events = env
    r = write(dispatcher, PLAN)
    assert r.ok
    assert r.content == ("Todo list (1/3 done):\n[x] read the failing test\n[~] fix the parser\n"
                         "[ ] run the suite")
    expected = [{"content": "read the failing test", "status": "done"},
                {"content": "fix the parser", "status": "in_progress", "id": "2"},
                {"content": "run the suite", "status": "pending"}]
    assert ctx.extra["todos"] == expected
    updates = [e for e in events if isinstance(e, TodoUpdated)]
    assert [u.todos for u in updates] == [expected]
    assert json.loads(updates[0].to_json())["type"] == "todo_updated"


def test_each_call_replaces_the_whole_list(env):
    dispatcher, ctx, events = env
    write(dispatcher, PLAN)
    r = write(dispatcher, [{"content": "ship it", "status": "done"}])
    assert r.content == "Todo list (1/1 done):\n[x] ship it"
    assert ctx.extra["todos"] == [{"content": "ship it", "status": "done"}]
    assert len([e for e in events if isinstance(e, TodoUpdated)]) == 2


def test_empty_list_clears(env):
    dispatcher, ctx, events = env
    write(dispatcher, PLAN)
    assert write(dispatcher, []).content == "Todo list cleared."
    assert ctx.extra["todos"] == []
    assert [e.todos for e in events if isinstance(e, TodoUpdated)][-1] == []


def test_two_in_progress_is_a_validation_error_and_keeps_the_old_list(env):
    dispatcher, ctx, events = env
    write(dispatcher, PLAN)
    before = list(ctx.extra["todos"])
    r = write(dispatcher, [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}])
    assert not r.ok
    assert r.content.splitlines()[1] == ("  - todos: Value error, 2 items are in_progress; at most one may be "
                                         "(mark the others pending or done)")
    assert ctx.extra["todos"] == before
    assert len([e for e in events if isinstance(e, TodoUpdated)]) == 1


@pytest.mark.parametrize("todos, line", [
    ([{"content": "a", "status": "started"}],
     "  - todos.0.status: Input should be 'pending', 'in_progress' or 'done' (got string 'started')"),
    ([{"status": "done"}], "  - todos.0.content: Field required (expected string)"),
    ([{"content": "", "status": "done"}], "  - todos.0.content: String should have at least 1 character (got string '')"),
    ("do everything", "  - todos: Input should be a valid list (got string 'do everything')"),
])
def test_bad_items_are_reported_by_field(env, todos, line):
    dispatcher, ctx, _ = env
    r = write(dispatcher, todos)
    assert not r.ok and r.content.splitlines()[1] == line
    assert "todos" not in ctx.extra


def test_read_only_but_not_concurrency_safe():
    spec = ToolRegistry.with_builtins().get("todo_write")
    assert spec is not None and spec.deferred
    inp = TodoWriteInput.model_validate({"todos": PLAN})
    assert spec.is_read_only(inp) and not spec.is_destructive(inp) and not spec.concurrency_safe(inp)


def test_without_event_sink_still_works(tmp_path):
    registry = ToolRegistry.with_builtins()
    registry.activate(["todo_write"])
    ctx = ToolContext(project_root=tmp_path, state_dir=tmp_path / ".axon", session_id="s",
                      settings=Settings(), registry=registry)
    r = write(Dispatcher(registry, ctx), PLAN[:1])
    assert r.content == "Todo list (1/1 done):\n[x] read the failing test"
