"""How the agent runs one reply's tool calls (``ToolCalls``, mixed into ``agent.Agent``).

The loop's own refusals come first (a call cut off by the output token limit, a call that keeps
failing the same way), then the guidance's; the rest go through the dispatcher on the agent's worker
pool, all at once when every one is concurrency-safe, else one by one until the user interrupts.
Every call gets exactly one answer, interrupted or not, and the ledger records how each ended.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from axon_cli.agent.loop.guidance_seam import TurnGuide
from axon_cli.agent.model.llm import AssistantTurn
from axon_cli.tools.dispatch import CallResult, Dispatcher, ToolCall
from axon_cli.tools.ledger import CallLedger, Refusal
from axon_cli.tools.spec import ToolContext

__all__ = ["ToolCalls", "LOOP_LIMIT", "CUT_CALL", "LOOPING"]

LOOP_LIMIT = 3
CUT_CALL = ("Error: your reply hit the output token limit while writing this call, so it was not run. "
            "Send it again, smaller (split a large write into several edits).")
LOOPING = ("Error: this exact call has already failed {n} times, so it was not run again. You are "
           "looping: read the last error, change the arguments or take a different approach.")


class ToolCalls:
    """The tool-call half of ``Agent``: what it reads of the agent is declared here."""

    ctx: ToolContext
    dispatcher: Dispatcher
    ledger: CallLedger
    guide: TurnGuide
    _pool: ThreadPoolExecutor

    def _execute(self, turn: AssistantTurn) -> list[CallResult]:
        calls = turn.tool_calls
        answers: dict[str, CallResult] = {}
        runnable: list[ToolCall] = []
        for call in calls:
            early = self._precheck(call, turn.finish_reason)
            if early is None:
                early = self.guide.refusal(call)        # it notes a refused repeat in the ledger
            if early is not None:
                answers[call.id] = self.dispatcher.reject(call, early)
            else:
                runnable.append(call)
        try:
            if runnable and all(self.dispatcher.concurrency_safe(c) for c in runnable):
                self._run_concurrently(runnable, answers)
            else:
                for call in runnable:
                    answers[call.id] = self._run_one(call)
                    if self.ctx.cancel.is_set():
                        break
        except KeyboardInterrupt:
            self.ctx.cancel.set()
        for call in calls:
            if call.id not in answers:
                answers[call.id] = self.dispatcher.interrupted(call)
        results = [answers[c.id] for c in calls]
        for call, result in zip(calls, results, strict=True):
            self.ledger.record(call, result)
        return results

    def _precheck(self, call: ToolCall, finish_reason: str | None) -> str | None:
        """The loop's own refusals: a call cut off mid-arguments, a call that keeps failing the same way
        (failures count across successful reads in between — a model alternating a search and the
        same bad edit is looping too — until a change or command succeeds)."""
        if finish_reason == "length":
            try:
                call.parsed()
            except ValueError:
                self.ledger.refuse(call, Refusal.CUT)
                return CUT_CALL
        count = self.ledger.failures(call)
        if count < LOOP_LIMIT:
            return None
        self.ledger.refuse(call, Refusal.LOOPING)
        return LOOPING.format(n=count)

    def _run_one(self, call: ToolCall) -> CallResult:
        prepared = self.dispatcher.prepare(call)
        if isinstance(prepared, CallResult):
            return prepared
        future = self._pool.submit(self.dispatcher.execute, prepared)
        return self._wait(future)

    def _run_concurrently(self, calls: list[ToolCall], answers: dict[str, CallResult]) -> None:
        futures: list[tuple[ToolCall, Future[CallResult]]] = []
        for call in calls:
            prepared = self.dispatcher.prepare(call)
            if isinstance(prepared, CallResult):
                answers[call.id] = prepared
            else:
                futures.append((call, self._pool.submit(self.dispatcher.execute, prepared)))
        for call, future in futures:
            answers[call.id] = self._wait(future)

    def _wait(self, future: Future[CallResult]) -> CallResult:
        """Wait for a worker; on Ctrl-C, cancel and still collect its (interrupted) answer."""
        try:
            return future.result()
        except KeyboardInterrupt:
            self.ctx.cancel.set()
            try:
                return future.result(timeout=5)
            except TimeoutError:
                raise KeyboardInterrupt from None
