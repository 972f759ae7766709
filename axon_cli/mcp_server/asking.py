"""A tool call that asks, put to the MCP client: an elicitation where the client supports one
(accept runs the call, decline or cancel refuses it), else a refusal that says why.

The approver runs on the session's worker thread; the elicitation is sent on the server's event loop
and the worker waits for the answer.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, Field

from axon_cli.events import ApprovalRequest

__all__ = ["ElicitingApprover", "NO_ELICITATION", "NO_BACK_CHANNEL", "Approval"]

NO_BACK_CHANNEL = ("refused: this call needs approval, and this MCP connection cannot carry a question in the "
                   "middle of a call (the 2026-07-28 protocol asks through input-required results, which axon "
                   "does not serve yet; a client on protocol 2025-11-25 is asked by elicitation); start `axon "
                   "mcp-server` with a wider --mode, or add an allow rule to the project's .axon/permissions.toml")
NO_ELICITATION = ("refused: this call needs approval, and the MCP client cannot be asked (it does not "
                  "support elicitation); start `axon mcp-server` with a wider --mode, or add an allow rule "
                  "to the project's .axon/permissions.toml")


class Approval(BaseModel):
    """What the client's user answers (accepting the elicitation with approve=true runs the call)."""

    approve: bool = Field(True, description="run this call")


class ElicitingApprover:
    """The SDK ``approve`` callback of one MCP tool call: ``ctx`` is that call's MCP context."""

    def __init__(self, ctx: Any, loop: asyncio.AbstractEventLoop) -> None:
        self.ctx = ctx
        self.loop = loop

    def can_ask(self) -> bool:
        import mcp_types as t

        try:
            return bool(self.ctx.session.check_client_capability(t.ClientCapabilities(elicitation=t.ElicitationCapability())))
        except Exception:
            return False

    def __call__(self, request: ApprovalRequest) -> bool | str:
        if not self.can_ask():
            return NO_ELICITATION
        future = asyncio.run_coroutine_threadsafe(self._elicit(request), self.loop)
        try:
            return future.result()
        except Exception as e:
            if type(e).__name__ == "NoBackChannelError":
                return NO_BACK_CHANNEL
            return f"refused: asking the MCP client failed ({type(e).__name__})"

    async def _elicit(self, request: ApprovalRequest) -> bool | str:
        answer = await self.ctx.elicit(message=message_of(request), schema=Approval)
        if answer.action == "accept" and getattr(answer.data, "approve", False):
            return True
        return f"refused by the MCP client's user ({answer.action})"


def message_of(request: ApprovalRequest) -> str:
    """The question: the call, why it asks, and the command or diff."""
    lines = [f"axon wants to run {request.tool}: {request.summary}", f"why it asks: {request.reason}"]
    if request.outside_sandbox:
        lines.append(f"it would run outside the sandbox: {request.outside_reason}")
    if request.preview:
        lines.append(request.preview[:4000])
    return "\n".join(lines)
