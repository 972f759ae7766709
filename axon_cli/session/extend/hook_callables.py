"""Hooks that are Python callables of the program embedding axon (``axon_cli.app.sdk``'s ``hooks=``).

A ``CallableHook`` sits among the configured hooks of its event and is matched the same way; instead of
a shell command it calls ``fn(payload)`` in-process with the JSON object a command hook reads on its
stdin (Claude Code's vocabulary), sync or async. What it returns is read as a command hook's JSON
reply (``decision``, ``hookSpecificOutput.permissionDecision``, ``additionalContext``, ``continue``…);
a string is plain output (context for SessionStart and UserPromptSubmit); None is a silent success;
an exception is a failed hook (a problem line, the hook counts as silent), as a non-zero exit is.
It is the embedding program's own code, already loaded: nothing in the project can rewrite it, so it
runs without the outside-the-sandbox check a command hook gets.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable
from typing import Any

from pydantic import PrivateAttr

from axon_cli.session.extend.hook_reply import HookReply, read_reply
from axon_cli.settings.config import HookConfig

__all__ = ["CallableHook", "HookFn", "run_callable"]

HookFn = Callable[[dict[str, Any]], Any]


class CallableHook(HookConfig):
    """A hook that calls ``fn``; ``command`` names it for the audit log and messages."""

    _fn: HookFn = PrivateAttr()

    @classmethod
    def of(cls, fn: HookFn, matcher: str = "") -> CallableHook:
        name = getattr(fn, "__qualname__", None) or type(fn).__name__
        hook = cls.model_validate({"matcher": matcher, "command": f"python:{name}", "source": "sdk"})
        hook._fn = fn
        return hook

    @property
    def fn(self) -> HookFn:
        return self._fn


def run_callable(event: str, hook: CallableHook, payload: bytes) -> HookReply:
    """Call the hook with the payload a command hook would read, and read its answer."""
    try:
        answer = hook.fn(json.loads(payload))
        if inspect.isawaitable(answer):
            answer = asyncio.run(_awaited(answer))
    except Exception as e:
        return read_reply(event, hook, 1, "", f"{type(e).__name__}: {e}")
    if answer is None:
        return read_reply(event, hook, 0, "", "")
    if isinstance(answer, str):
        return read_reply(event, hook, 0, answer.strip(), "")
    try:
        text = json.dumps(answer, default=str)
    except (TypeError, ValueError):
        return read_reply(event, hook, 1, "", f"returned {type(answer).__name__}, not a JSON object")
    return read_reply(event, hook, 0, text, "")


async def _awaited(awaitable: Any) -> Any:
    return await awaitable
