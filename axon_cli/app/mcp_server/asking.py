"""A tool call that asks, put to the MCP client: an elicitation where the client supports one
(accept with ``approve: true`` runs the call, decline or cancel refuses it), else a refusal that says
why.

The approver runs on the session's worker thread. On a connection of the handshake era (protocol
2025-11-25 and earlier) the elicitation is a request sent mid-call on the server's event loop. On the
2026-07-28 protocol a server cannot send one mid-call: the question is handed to the ``CallRun`` of
the tool call, which answers the call with an ``InputRequiredResult``; the client asks its user and
retries the call with the answer, which the run hands back to the waiting worker.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any

from pydantic import BaseModel, Field

from axon_cli.kernel.events import ApprovalRequest

__all__ = ["ElicitingApprover", "CallRun", "NO_ELICITATION", "Approval", "ANSWER_WAIT_S", "input_required", "answer_of"]

NO_ELICITATION = ("refused: this call needs approval, and the MCP client cannot be asked (it does not "
                  "support elicitation); start `axon mcp-server` with a wider --mode, or add an allow rule "
                  "to the project's .axon/permissions.toml")
ANSWER_WAIT_S = 600.0         # a client that never retries with an answer: the call is refused then


class Approval(BaseModel):
    """What the client's user answers (accepting the elicitation with approve=true runs the call)."""

    approve: bool = Field(True, description="run this call")


class CallRun:
    """One ``axon``/``axon-reply`` call's prompt across the retries of the 2026-07-28 protocol: the
    worker running it, and the questions it waits on."""

    def __init__(self, worker: asyncio.Future[Any]) -> None:
        self.worker = worker
        self.questions: asyncio.Queue[tuple[str, concurrent.futures.Future[bool | str]]] = asyncio.Queue()
        self.waiting: concurrent.futures.Future[bool | str] | None = None    # the question the client holds
        self.progress: Any = None                                            # the call's progress reporter


class ElicitingApprover:
    """The SDK ``approve`` callback of one MCP tool call (``ctx``: the MCP context of its latest round)."""

    def __init__(self, ctx: Any, loop: asyncio.AbstractEventLoop, run: CallRun | None = None) -> None:
        self.ctx = ctx
        self.loop = loop
        self.run = run

    def can_ask(self) -> bool:
        import mcp_types as t

        try:
            return bool(self.ctx.session.check_client_capability(t.ClientCapabilities(elicitation=t.ElicitationCapability())))
        except Exception:
            return False

    def __call__(self, request: ApprovalRequest) -> bool | str:
        if not self.can_ask():
            return NO_ELICITATION
        message = message_of(request)
        try:
            return asyncio.run_coroutine_threadsafe(self._elicit(message), self.loop).result()
        except Exception as e:
            if type(e).__name__ != "NoBackChannelError" or self.run is None:
                return f"refused: asking the MCP client failed ({type(e).__name__})"
        return self._through_the_call(message)

    async def _elicit(self, message: str) -> bool | str:
        answer = await self.ctx.elicit(message=message, schema=Approval)
        if answer.action == "accept" and getattr(answer.data, "approve", False):
            return True
        return f"refused by the MCP client's user ({answer.action})"

    def _through_the_call(self, message: str) -> bool | str:
        """The 2026-07-28 way: the tool call answers with the question; its retry brings the answer."""
        assert self.run is not None
        answer: concurrent.futures.Future[bool | str] = concurrent.futures.Future()
        self.loop.call_soon_threadsafe(self.run.questions.put_nowait, (message, answer))
        try:
            return answer.result(timeout=ANSWER_WAIT_S)
        except concurrent.futures.TimeoutError:
            return f"refused: the MCP client did not answer within {ANSWER_WAIT_S:.0f} s"


def input_required(message: str, state: str) -> Any:
    """The ``InputRequiredResult`` that asks the client's user ``message``; ``state`` comes back."""
    import mcp_types as t

    schema = {"type": "object", "properties": {"approve": {"type": "boolean", "title": "approve",
                                                           "description": "run this call", "default": True}},
              "required": ["approve"]}
    return t.InputRequiredResult(
        input_requests={"approval": t.ElicitRequest(params=t.ElicitRequestFormParams(message=message,
                                                                                     requested_schema=schema))},
        request_state=state)


def answer_of(responses: Any) -> bool | str:
    """The client's answer to ``input_required``'s question (anything but accept + approve refuses)."""
    response = (responses or {}).get("approval")
    action = getattr(response, "action", None)
    content = getattr(response, "content", None) or {}
    if action == "accept" and content.get("approve", True) is True:
        return True
    return f"refused by the MCP client's user ({action or 'no answer'})"


def message_of(request: ApprovalRequest) -> str:
    """The question: the call, why it asks, and the command or diff."""
    lines = [f"axon wants to run {request.tool}: {request.summary}", f"why it asks: {request.reason}"]
    if request.outside_sandbox:
        lines.append(f"it would run outside the sandbox: {request.outside_reason}")
    if request.preview:
        lines.append(request.preview[:4000])
    return "\n".join(lines)
