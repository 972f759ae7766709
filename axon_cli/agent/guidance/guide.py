"""The one object the agent loop calls for answer guidance: one user turn's nudges (an empty reply,
a stated intent), answer checks (``reminders``) and repeat guard (``repeats``); and, as the
``guidance_parts`` setting says, the files a task names attached to it (``named_files``), whether the
next reply must be a call (``call_need``) and what that call may be (``grounded_call``), and whole-file edits of small files (``whole_file``).

The loop declares what it calls (``agent/loop/guidance_seam.TurnGuide``) and builds this only when the
``guidance`` setting is on; nothing here imports the loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from axon_cli.agent.guidance.call_need import CallNeed
from axon_cli.agent.guidance.grounded_call import grounded_tools
from axon_cli.agent.guidance.named_files import attach_named
from axon_cli.agent.guidance.nudges import EMPTY_GAVE_UP, Nudger
from axon_cli.agent.guidance.reminders import AnswerChecks
from axon_cli.agent.guidance.repeats import RepeatGuard
from axon_cli.kernel.turn import UserTurn
from axon_cli.tools.builtin.files.whole_file import WHOLE_FILE_LINES, WholeFileEdits, describe_for_whole_files
from axon_cli.tools.dispatch import CallResult, ToolCall
from axon_cli.tools.ledger import CallLedger
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext

__all__ = ["Guidance"]


class Guidance:
    """Guidance for one agent; ``new_turn`` starts each user turn afresh."""

    def __init__(self, registry: ToolRegistry, ctx: ToolContext,
                 reads_unasked: Callable[[str], bool] | None = None) -> None:
        self.registry = registry
        self.ctx = ctx
        parts = set(getattr(ctx.settings, "guidance_parts", ()))
        self.parts = parts
        self.reads_unasked = reads_unasked if "attach" in parts else None
        if "whole_file" in parts:      # the file tools read it: small files are rewritten whole
            edits = WholeFileEdits(WHOLE_FILE_LINES)
            ctx.extra[WholeFileEdits.KEY] = edits
            describe_for_whole_files(registry.all(), edits)
        self.ledger = CallLedger(registry)      # the agent binds its own
        self.reason = ""             # why the last message was sent, for a Notice event
        self.new_turn(UserTurn(""), None)

    def new_turn(self, turn: UserTurn, hint: str | None) -> None:
        """A user turn begins with ``turn``; ``hint`` says how the protocol calls a tool."""
        mode = self.ctx.mode() if self.ctx.mode is not None else getattr(self.ctx.settings, "mode", "")
        planning = mode == "plan"                 # the mode in force as the turn starts (its owner says)
        self.nudger = Nudger(hint, bool(self.registry.active()), self.registry, self.ctx, planning=planning)
        self.checks = AnswerChecks(turn, hint, self.registry, self.ctx, planning=planning)
        self.repeats = RepeatGuard(self.ledger)
        self.need = CallNeed(self.checks, "constrain" in self.parts, planning)
        self.reason = ""

    def attach(self, turn: UserTurn) -> UserTurn:
        """``turn`` with the small project files it names attached (the ``attach`` part), else as it is."""
        if self.reads_unasked is None or not self.registry.active():
            return turn
        return attach_named(turn, self.ctx, self.reads_unasked)

    def required_call(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        """When the next reply can only sensibly be a call (the ``constrain`` part): ``tools`` as that
        call may use them, narrowed to what the session has seen (``grounded_call``); else None."""
        if not self.need.next:
            return None
        return grounded_tools(tools, self.ctx, self.need.avoid, self.checks.moves.unmoved())

    def bind(self, ledger: CallLedger) -> None:
        """The agent's call ledger: the repeat rule reads its runs and notes its refusals there."""
        self.ledger = ledger
        self.repeats = RepeatGuard(ledger)

    def refusal(self, call: ToolCall) -> str | None:
        """The answer instead of running ``call`` (a write that would make the task's move a copy, a
        repeat whose result the model has), or None."""
        return self.checks.moves.refusal(call) or self.repeats.refusal(call)

    def after_calls(self, calls: list[ToolCall], results: list[CallResult]) -> list[CallResult]:
        """Note what came back; the results to send (a failed one may carry the task's move: ``moves``)."""
        self.nudger.saw_calls()       # the runs the repeat guard counts are in the ledger (the loop records)
        self.checks.saw(calls, results)
        self.need.after_calls(calls, results, self.registry)
        return self.checks.moves.annotate(results)

    def after_reply(self, answer: str) -> str | None:
        """The message to send back instead of accepting ``answer`` as final, or None."""
        nudge = self.nudger.check(answer)
        if nudge is not None or self.nudger.gave_up or not answer.strip():
            self.reason = self.nudger.reason
            self.need.after_reply("nudge" if nudge is not None else None)
            return nudge
        sent = set(self.checks.sent)
        nudge = self.checks.check(answer)
        self.reason = self.checks.reason
        self.need.after_reply(next(iter(self.checks.sent - sent), None) if nudge is not None else None)
        return nudge

    def stop_reason(self) -> str | None:
        """Why the run stops as an error (an empty reply after a nudge, repeats again and again), or None."""
        if self.nudger.gave_up:
            return EMPTY_GAVE_UP
        return self.repeats.stop_message() if self.repeats.stopped else None
