"""``todo_write(todos)``: the session's checklist (deferred tool).

Each call replaces the whole list. The list lives in ``ctx.extra["todos"]`` (session state, no
file), a ``TodoUpdated`` event carries it to the frontends, and the result is the rendered list:
``[x]`` done, ``[~]`` in progress, ``[ ]`` pending. At most one item may be in progress (a
validation error otherwise: one current step keeps the plan and the display honest).

Read-only for the permission layer: it changes no file and runs nothing, only session state, so
planning works in read-only mode too. Not concurrency-safe: two lists in one batch would race.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from axon_cli.kernel.events import TodoUpdated
from axon_cli.tools.spec import ToolContext, ToolOutput, ToolSpec

__all__ = ["TOOLS", "TodoItem", "TodoWriteInput", "todo_write", "render", "MARKS", "MAX_TODOS"]

Status = Literal["pending", "in_progress", "done"]
MARKS: dict[str, str] = {"done": "[x]", "in_progress": "[~]", "pending": "[ ]"}
MAX_TODOS = 100


class TodoItem(BaseModel):
    content: str = Field(min_length=1, max_length=500)
    status: Status = "pending"
    id: str | None = None


class TodoWriteInput(BaseModel):
    todos: list[TodoItem] = Field(description="The whole list (replaces the previous one)",
                                  max_length=MAX_TODOS)

    @field_validator("todos")
    @classmethod
    def _one_in_progress(cls, todos: list[TodoItem]) -> list[TodoItem]:
        busy = [t.content for t in todos if t.status == "in_progress"]
        if len(busy) > 1:
            raise ValueError(f"{len(busy)} items are in_progress; at most one may be "
                             "(mark the others pending or done)")
        return todos


def render(todos: list[dict[str, Any]]) -> str:
    """The checklist as text lines, one per item."""
    return "\n".join(f"{MARKS.get(str(t.get('status')), '[ ]')} {t.get('content', '')}" for t in todos)


def todo_write(inp: TodoWriteInput, ctx: ToolContext) -> ToolOutput:
    todos = [t.model_dump(exclude_none=True) for t in inp.todos]
    ctx.extra["todos"] = todos
    if ctx.emit is not None:
        ctx.emit(TodoUpdated(todos=todos))
    if not todos:
        return ToolOutput("Todo list cleared.", summary="cleared", display={"todos": []})
    done = sum(1 for t in todos if t["status"] == "done")
    text = f"Todo list ({done}/{len(todos)} done):\n{render(todos)}"
    return ToolOutput(text, summary=f"{done}/{len(todos)} done", display={"todos": todos})


TOOLS: list[ToolSpec[Any]] = [
    ToolSpec(
        name="todo_write",
        description=("Write the task checklist (replaces the whole list; the user sees it). Use for "
                     "multi-step work: statuses pending, in_progress (at most one), done."),
        short_description="keep a task checklist / plan (pending, in_progress, done) shown to the user",
        input_model=TodoWriteInput,
        handler=todo_write,
        category="other",
        is_read_only=lambda _i: True,
        is_concurrency_safe=lambda _i: False,
        summarize=lambda i: f"{len(i.todos)} items",
        deferred=True,
    ),
]
