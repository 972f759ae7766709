"""The agent loop: run → step → (query the model, execute its tool calls). Emits events; never prints.

Control flow: ``run`` appends the user's turn (a typed ``UserTurn``, rendered to the chat message as
it is appended, its pictures as image parts when the model takes images; the protocol and the
guidance read its words and attached files), then steps until
the model answers without tool calls (final), ``max_turns`` requests were made, the user interrupts,
or the endpoint fails.
Every tool_call_id gets exactly one answer, whatever happens. The user's hooks (``TurnHooks``) may
block a prompt or add context to it, and may send the agent back to work instead of stopping. The
answer guidance for small models (``guide.TurnGuide``, off unless the ``guidance`` setting is on for
this endpoint and model) may send a reply back with a reminder, or answer an idle repeat instead of
running it.

One reply's tool calls: the loop's own refusals come first (a call cut off by the output token limit, a call that keeps
failing the same way), then the guidance's; the rest go through the dispatcher on the agent's worker
pool, all at once when every one is concurrency-safe, else one by one until the user interrupts.
Every call gets exactly one answer, interrupted or not, and the ledger records how each ended.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from axon_cli.agent.loop.echo import Notes
from axon_cli.agent.loop.guidance_seam import TurnGuide, choose_guide
from axon_cli.agent.loop.images import attach_images, user_content
from axon_cli.agent.loop.results import RunResult
from axon_cli.agent.loop.seams import AgentCallbacks, TurnHooks
from axon_cli.agent.model import debuglog
from axon_cli.agent.model.constrained import call_schema
from axon_cli.agent.model.llm import AssistantTurn, LLMClient
from axon_cli.agent.model.turns import with_context
from axon_cli.agent.protocols.interface import NativeProtocol, ToolProtocol
from axon_cli.kernel.errors import AxonError, ContextTooLong
from axon_cli.kernel.events import (
    AssistantDelta,
    AssistantMessage,
    Error,
    EventSink,
    Notice,
    TurnComplete,
    TurnStarted,
    Usage,
)
from axon_cli.kernel.turn import UserTurn
from axon_cli.tools.dispatch import CallResult, Dispatcher, ToolCall
from axon_cli.tools.ledger import CallLedger, Refusal
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext

__all__ = ["Agent", "GoOn", "SendBack", "EndTurn", "RunResult", "AgentCallbacks", "CUT_CALL", "LOOP_LIMIT", "LOOPING"]

LOOP_LIMIT = 3

CUT_CALL = ("Error: your reply hit the output token limit while writing this call, so it was not run. "
            "Send it again, smaller (split a large write into several edits).")

LOOPING = ("Error: this exact call has already failed {n} times, so it was not run again. You are "
           "looping: read the last error, change the arguments or take a different approach.")


log = logging.getLogger("axon.agent")

MAX_CONTINUATIONS = 3
PROJECT_TOOLS = ("read", "edit", "shell")    # the tool categories a reply asked to be a call may call

CONTINUE_PROMPT = "Your reply was cut off by the output token limit. Continue exactly where it stopped."


class SendBack(Exception):
    """The turn goes on: ``messages`` are appended and the model is asked again (``notice``: why, shown)."""

    def __init__(self, *messages: dict[str, Any], notice: str = "") -> None:
        super().__init__(notice)
        self.messages, self.notice = list(messages), notice


class EndTurn(Exception):
    """The turn ends with ``result`` (an error result is shown as an error, else ``notice`` if any)."""

    def __init__(self, result: RunResult, notice: str = "") -> None:
        super().__init__(result.result)
        self.result, self.notice = result, notice


class GoOn:
    """The loop's one question after each reply — go on, or stop? — asked in this order: the protocol's
    feedback on text calls it could not use, a reply cut by the output limit, axon's own notes echoed
    as the answer, the answer guidance, the user's Stop hooks; after tool calls: an interrupt, a hook
    that halts, the guidance's repeated refusals. Every answer is a ``SendBack`` or an ``EndTurn``."""

    def __init__(self, protocol: ToolProtocol, notes: Notes, guide: TurnGuide, turn_hooks: TurnHooks | None,
                 cancel: threading.Event) -> None:
        self.protocol, self.notes, self.guide, self.turn_hooks, self.cancel = protocol, notes, guide, turn_hooks, cancel
        self.continued: list[str] = []     # the parts of an answer cut by the output limit, so far
        self.sent_back = False             # a Stop hook already sent the agent back to work this turn

    def after_reply(self, turn: AssistantTurn, turns: int) -> None:
        """A reply without tool calls: always raises."""
        feedback = self.protocol.result_messages(turn, []) if turn.call_errors else []
        if feedback:   # text calls that could not be used: the model reads why
            raise SendBack(*feedback)
        if turn.finish_reason == "length" and len(self.continued) < MAX_CONTINUATIONS:
            self.continued.append(turn.content)
            raise SendBack({"role": "user", "content": CONTINUE_PROMPT})
        answer = "".join(self.continued) + turn.content
        # axon's own note echoed as the answer; else empty reply, "let me run…", an ungrounded answer
        nudge = self.notes.sent_back(answer) or self.guide.after_reply(answer)
        if (why := self.notes.stop_reason() or self.guide.stop_reason()) is not None:
            raise EndTurn(RunResult(why, "error", turns, error=why))
        self.continued.clear()
        if nudge:
            raise SendBack({"role": "user", "content": nudge}, notice=self.notes.reason or self.guide.reason)
        go_on = self.turn_hooks.about_to_stop(answer, self.sent_back) if self.turn_hooks else None
        if go_on:
            self.sent_back = True
            raise SendBack({"role": "user", "content": go_on})
        raise EndTurn(RunResult(answer, "final", turns))

    def calls_made(self) -> None:
        """A reply with tool calls: an answer cut before it is not continued."""
        self.continued.clear()

    def after_calls(self, turns: int) -> None:
        """After the calls' results are in: raises ``EndTurn`` when the turn stops, else returns."""
        if self.cancel.is_set():
            raise EndTurn(RunResult("interrupted by user", "interrupted", turns))
        if self.turn_hooks is not None and (halt := self.turn_hooks.halted()):
            raise EndTurn(RunResult(halt, "final", turns), notice=f"a hook stopped the agent: {halt}")
        if (why := self.guide.stop_reason()) is not None:   # refused repeats, again and again
            raise EndTurn(RunResult(why, "error", turns, error=why))

class Agent:
    def __init__(self, *, llm: LLMClient, registry: ToolRegistry, dispatcher: Dispatcher, ctx: ToolContext,
                 system_prompt: str | Callable[[], str], emit: EventSink, callbacks: AgentCallbacks | None = None,
                 protocol: ToolProtocol | None = None, messages: list[dict[str, Any]] | None = None,
                 turn_hooks: TurnHooks | None = None, shared_cancel: bool = False,
                 context: str | Callable[[], str] = "", guide: TurnGuide | None = None) -> None:
        self.llm = llm
        self.registry = registry
        self.dispatcher = dispatcher
        self.ctx = ctx
        self.emit = emit
        self.callbacks = callbacks or AgentCallbacks()
        self.protocol: ToolProtocol = protocol or NativeProtocol()
        self.turn_hooks = turn_hooks
        self.shared_cancel = shared_cancel    # ctx.cancel belongs to a parent agent: never cleared here
        self._system_prompt = system_prompt
        self._context = context
        self.messages: list[dict[str, Any]] = list(messages or [])
        self.notes = Notes()                  # axon's own notes in this turn: never the answer
        if not self.messages:
            self.append({"role": "system", "content": self.system_prompt()})
        self.turns_total = 0
        self.ledger = CallLedger(registry)    # how calls ended, why one was refused: one record for all rules
        # guidance for small models, or none
        self.guide = guide or choose_guide(ctx.settings, registry, ctx, dispatcher.reads_unasked)
        self.guide.bind(self.ledger)
        self.protocol.bind(self.ledger)
        self._pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="axon-tool")

    def system_prompt(self) -> str:
        sp = self._system_prompt
        return sp() if callable(sp) else sp

    def project_context(self) -> str:
        """What goes in front of the first user message of every request (``session/conversation/context.py``)."""
        ctx = self._context
        return ctx() if callable(ctx) else ctx

    def request_messages(self) -> list[dict[str, Any]]:
        """``messages`` as sent: the project context in front of the first user message, so the
        system prompt and the tool schemas stay a prefix the server can cache between runs."""
        return with_context(self.messages, self.project_context())

    def append(self, message: dict[str, Any], note: bool = True) -> None:   # note: a user message is axon's
        self.messages.append(message)
        if note:
            self.notes.add(message)
        self.callbacks.on_message(message)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    # -- one user turn ---------------------------------------------------------------------------
    def run(self, task: UserTurn | str, max_turns: int | None = None) -> RunResult:
        """One user turn: ``task`` typed, or a string taken as a rendered message (``UserTurn.of``)."""
        limit = max_turns or self.ctx.settings.max_turns
        if not self.shared_cancel:
            self.ctx.cancel.clear()
        turn = UserTurn.of(task)
        message = turn.render()
        verdict = self.turn_hooks.prompt_submitted(message) if self.turn_hooks is not None else None
        if verdict is not None and verdict.blocked:
            why = f"the prompt was blocked by a UserPromptSubmit hook: {verdict.reason or 'no reason given'}"
            self.emit(Error(message=why))
            self.emit(TurnComplete(result=why, num_turns=0, stop_reason="error"))
            return RunResult(why, "error", 0, error=why)
        turn = self.guide.attach(turn)        # the files the task names, for small models
        message = turn.render()
        self.callbacks.on_user_turn(turn)
        self.notes.clear()
        content, left_out = user_content(message, turn.images, self.llm.takes_images())
        if left_out:
            self.emit(Notice(message=left_out))
        self.append({"role": "user", "content": content}, note=False)
        if verdict is not None and verdict.context:
            self.append({"role": "user", "content": verdict.context}, note=False)
        result = self._run_loop(limit, turn)
        self.emit(TurnComplete(result=result.result, num_turns=result.num_turns, stop_reason=result.stop_reason))
        self.callbacks.after_turn(self, result)
        return result

    def _run_loop(self, limit: int, user_turn: UserTurn) -> RunResult:
        turns = 0
        go_on = GoOn(self.protocol, self.notes, self.guide, self.turn_hooks, self.ctx.cancel)
        self.ledger.new_turn()
        self.protocol.new_turn(user_turn.text)
        self.guide.new_turn(user_turn, getattr(self.protocol, "call_hint", None))
        try:
            while turns < limit:
                turns += 1
                self.turns_total += 1
                self.emit(TurnStarted(turn=turns))
                turn = self.protocol.extract_calls(self._query(), self.registry)
                self.emit(AssistantMessage(content=turn.content, finish_reason=turn.finish_reason,
                                           tool_calls=[{"id": c.id, "name": c.name, "arguments": c.arguments}
                                                       for c in turn.tool_calls]))
                self.append(turn.message())
                try:
                    if not turn.tool_calls:
                        go_on.after_reply(turn, turns)
                    go_on.calls_made()
                    results = self.guide.after_calls(turn.tool_calls, self._execute(turn))
                    results, pictures = attach_images(results, self.llm.takes_images())
                    for message in [*self.protocol.result_messages(turn, results), *([pictures] if pictures is not None else [])]:
                        self.append(message)
                    go_on.after_calls(turns)
                except SendBack as back:
                    if back.notice:
                        self.emit(Notice(message=back.notice))
                    for message in back.messages:
                        self.append(message)
                except EndTurn as end:
                    if end.result.error:
                        self.emit(Error(message=end.result.error))
                    elif end.notice:
                        self.emit(Notice(message=end.notice))
                    return end.result
            return RunResult(f"stopped: reached the limit of {limit} turns", "max_turns", turns)
        except KeyboardInterrupt:
            self.ctx.cancel.set()
            return RunResult("interrupted by user", "interrupted", turns)
        except AxonError as e:
            self.emit(Error(message=str(e)))
            return RunResult(str(e), "error", turns, error=str(e))

    def _query(self) -> AssistantTurn:
        self.callbacks.before_request(self)
        tools = self.protocol.tools_param(self.registry)
        messages = self.request_messages()
        debuglog.log_request(messages, tools, self.protocol, self.registry)
        must_call = self._call_schema(tools)

        make_hider = getattr(self.protocol, "call_hider", None)   # text calls: their bodies are not shown
        hider = make_hider(self.registry) if make_hider is not None else None

        def on_text(text: str) -> None:
            shown = hider.feed(text) if hider is not None else text
            if shown:
                self.emit(AssistantDelta(text=shown))

        def on_reasoning(text: str) -> None:
            self.emit(AssistantDelta(text=text, kind="reasoning"))

        streamed = None if must_call is not None else on_text   # a reply asked to be a call is shown after
        started = time.monotonic()
        try:
            turn = self.llm.complete(messages, tools, streamed, on_reasoning, must_call)
        except ContextTooLong:
            if not self.callbacks.on_context_too_long(self):
                raise
            self.emit(Notice(message="the request was too long; compacted the history and retrying once"))
            started = time.monotonic()
            turn = self.llm.complete(self.request_messages(), tools, streamed, on_reasoning, must_call)
        latency_ms = int((time.monotonic() - started) * 1000)
        if streamed is None and turn.content:
            on_text(turn.content)
        rest = hider.flush() if hider is not None else ""
        if rest:
            self.emit(AssistantDelta(text=rest))
        debuglog.log_reply(turn)
        u = self.llm.usage
        said = turn.usage_reported
        self.emit(Usage(prompt_tokens=turn.prompt_tokens if said else None,
                        completion_tokens=turn.completion_tokens if said else None,
                        total_tokens=turn.prompt_tokens + turn.completion_tokens if said else None,
                        cached_tokens=turn.cached_tokens, model=self.llm.settings.model, latency_ms=latency_ms,
                        session_prompt_tokens=u.prompt_tokens, session_completion_tokens=u.completion_tokens,
                        cost_usd=self.callbacks.cost(self), response_id=turn.response_id,
                        response_model=turn.response_model))
        return turn

    def _call_schema(self, tools: list[dict[str, Any]] | None) -> tuple[dict[str, Any], set[str]] | None:
        """When the guide says the next reply must be a call: the schema of one call of a tool that
        looks at or changes the project (the ones offered, as the guide narrows them), with their
        names; else None."""
        offered = {t["function"]["name"] for t in tools} if tools else None
        specs = [s for s in self.registry.active() if s.category in PROJECT_TOOLS
                 and (offered is None or s.name in offered)]
        if not specs or not self.llm.constraint.available:
            return None
        required = self.guide.required_call([s.openai_tool() for s in specs])
        if not required:
            return None
        return call_schema(required), {t["function"]["name"] for t in required}

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
