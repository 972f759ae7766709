"""axon's approvals as ACP ``session/request_permission``.

The policy, folder trust and the sandbox decide exactly as in ``axon chat``; only the question is
asked differently: the client shows the call (its diff or command) with the options ``allow_once``,
``allow_always`` (when axon would offer "always": there is a rule to remember, for this session) and
``reject_once``. The answer maps to axon's ``ApprovalAnswer``; a cancelled request is a denial.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from axon_cli.app.acp.fs import call_on_loop
from axon_cli.app.acp.updates import tool_kind, tool_locations
from axon_cli.kernel.events import ApprovalAnswer, ApprovalRequest
from axon_cli.tools.registry import ToolRegistry

__all__ = ["AcpApprover", "ALLOW_ONCE", "ALLOW_ALWAYS", "REJECT_ONCE"]

ALLOW_ONCE, ALLOW_ALWAYS, REJECT_ONCE = "allow_once", "allow_always", "reject_once"
ANSWER_TIMEOUT_S = 24 * 3600.0     # a person answers; a cancel interrupts the wait


class AcpApprover:
    """Asks the client; one question at a time (dispatch asks from the turn's thread)."""

    def __init__(self, conn: Any, loop: asyncio.AbstractEventLoop, session_id: str, registry: ToolRegistry,
                 root: Path, cancel: threading.Event) -> None:
        self.conn, self.loop, self.session_id = conn, loop, session_id
        self.registry, self.root, self.cancel = registry, root, cancel

    def __call__(self, request: ApprovalRequest) -> ApprovalAnswer:
        if self.cancel.is_set():
            return ApprovalAnswer(approved=False, message="interrupted by user")
        reply = call_on_loop(self.loop, self.conn.request_permission(
            session_id=self.session_id, tool_call=self._tool_call(request), options=self._options(request)),
            timeout=ANSWER_TIMEOUT_S)
        outcome = getattr(reply, "outcome", None)
        chosen = getattr(outcome, "option_id", None) if getattr(outcome, "outcome", "") == "selected" else None
        if chosen == ALLOW_ONCE:
            return ApprovalAnswer(approved=True)
        if chosen == ALLOW_ALWAYS and request.suggested_rule:
            return ApprovalAnswer(approved=True, remember="session")
        if chosen is None:               # the client cancelled the question (the turn is being cancelled)
            return ApprovalAnswer(approved=False, message="interrupted by user")
        return ApprovalAnswer(approved=False)

    @staticmethod
    def _options(request: ApprovalRequest) -> list[Any]:
        from acp.schema import PermissionOption

        options = [PermissionOption(option_id=ALLOW_ONCE, name="Allow", kind="allow_once")]
        if request.suggested_rule:
            options.append(PermissionOption(option_id=ALLOW_ALWAYS, kind="allow_always",
                                            name=f"Always allow {request.suggested_rule} (this session)"))
        options.append(PermissionOption(option_id=REJECT_ONCE, name="Reject", kind="reject_once"))
        return options

    def _tool_call(self, request: ApprovalRequest) -> Any:
        from acp import helpers
        from acp.schema import ToolCallLocation, ToolCallUpdate

        why = request.reason or "the permission mode asks"
        if request.outside_sandbox:
            why += f"; if approved, it runs outside the sandbox: {request.outside_reason}"
        if request.destructive:
            why += "; destructive"
        text = (request.preview.strip("\n") + "\n\n" if request.preview else "") + f"why: {why}"
        paths = tool_locations(self.registry, self.root, request.tool, request.arguments)
        return ToolCallUpdate(tool_call_id=request.call_id, title=f"{request.tool}: {request.summary}",
                              kind=tool_kind(self.registry, request.tool),  # type: ignore[arg-type]
                              status="pending", raw_input=request.arguments,
                              content=[helpers.tool_content(helpers.text_block(text))],
                              locations=[ToolCallLocation(path=str(p)) for p in paths])
