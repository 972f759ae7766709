"""The SDK caller's ``approve`` callback as axon's ``Approver``.

``approve(request)`` may be a plain function or a coroutine function; it answers ``True`` (allow),
``False`` (deny) or a string (deny, and the string is the reason the model reads). An async
callback runs on the event loop the caller's ``query()`` iterates on when there is one, otherwise
on a private loop. A callback that raises, or answers anything else, denies: an approval never
passes by accident. Without a callback every call that would ask is refused, as in ``axon run``
without ``--yes``.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import Any

from axon_cli.kernel.events import ApprovalAnswer, ApprovalRequest

__all__ = ["CallbackApprover", "Approve", "NO_CALLBACK"]

Approve = Callable[[ApprovalRequest], Any]
NO_CALLBACK = "the SDK call gave no approve callback, so calls that would ask are refused"
log = logging.getLogger("axon.sdk")


class CallbackApprover:
    """Asks ``approve`` (None: refuse every ask); ``loop`` is the caller's event loop for async ones."""

    def __init__(self, approve: Approve | None, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.approve = approve
        self.loop = loop

    def __call__(self, request: ApprovalRequest) -> ApprovalAnswer:
        if self.approve is None:
            return ApprovalAnswer(approved=False, message=NO_CALLBACK)
        try:
            answer = self._ask(request)
        except Exception as e:      # a broken callback denies, and says so to the model
            log.exception("approve callback failed")
            return ApprovalAnswer(approved=False, message=f"the approve callback failed ({type(e).__name__})")
        if answer is True:
            return ApprovalAnswer(approved=True)
        if isinstance(answer, str) and answer.strip():
            return ApprovalAnswer(approved=False, message=answer.strip())
        return ApprovalAnswer(approved=False)

    def _ask(self, request: ApprovalRequest) -> Any:
        assert self.approve is not None
        answer = self.approve(request)
        if not inspect.isawaitable(answer):
            return answer
        if self.loop is not None and self.loop.is_running():
            return asyncio.run_coroutine_threadsafe(_awaited(answer), self.loop).result()
        return asyncio.run(_awaited(answer))


async def _awaited(awaitable: Any) -> Any:
    return await awaitable
