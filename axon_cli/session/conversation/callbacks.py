"""The agent callbacks of a session: transcript lines, turn boundaries for snapshots (undo), compaction,
the system prompt kept current, and usage and cost accounting.

One ``SessionCallbacks`` per runtime. Writing the transcript never breaks the agent: a failing write
(disk full, read-only directory) becomes one Notice and the session goes on unrecorded.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from axon_cli.agent.loop.results import RunResult
from axon_cli.agent.loop.seams import AgentCallbacks, Loop
from axon_cli.kernel.events import EventSink, Notice
from axon_cli.kernel.turn import UserTurn
from axon_cli.session.conversation.compaction import CompactionResult, Compactor
from axon_cli.session.conversation.cost import CostMeter
from axon_cli.session.conversation.transcript import SessionInUse, Transcript
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import Checkpointer, ToolContext

__all__ = ["SessionCallbacks"]


class SessionCallbacks(AgentCallbacks):
    def __init__(self, transcript: Transcript, checkpointer: Checkpointer, compactor: Compactor,
                 meter: CostMeter, ctx: ToolContext, registry: ToolRegistry, emit: EventSink,
                 current_mode: Callable[[], str], turns: int = 0) -> None:
        self.transcript = transcript
        self.checkpointer = checkpointer
        self.compactor = compactor
        self.meter = meter
        self.ctx = ctx
        self.registry = registry
        self.emit = emit
        self.current_mode = current_mode
        self.turns = turns
        self.in_turn = False
        self._user_turn: UserTurn | None = None   # the turn whose message is appended next
        self._index: dict[int, tuple[int, dict[str, Any]]] = {}   # id(message) -> (line index, message)
        self._logged_usage = (0, 0)
        self._state: dict[str, Any] = {}
        self._broken = False
        self.waiting: list[Callable[[], None]] = []   # settings still arriving (a server's context size)
        self.turn_end: list[Callable[[], None]] = []  # run when a turn ends (a skill's grants end with it)
        compactor.on_compacted = self._compacted

    # -- writing -------------------------------------------------------------------------------
    def _safely(self, fn: Callable[[], Any]) -> Any:
        if self._broken:
            return None
        try:
            return fn()
        except (OSError, SessionInUse) as e:
            self._broken = True
            self.emit(Notice(message=f"cannot write the session transcript ({e}); this session "
                                     "will not be resumable"))
            return None

    def meta(self, kind: str, **data: Any) -> None:
        self._safely(lambda: self.transcript.meta(kind, **data))

    def seed(self, messages: list[dict[str, Any]], indexes: dict[int, int]) -> None:
        """Messages resumed from the transcript keep their line indexes (for compaction views)."""
        for m in messages:
            if id(m) in indexes:
                self._index[id(m)] = (indexes[id(m)], m)
        self._state = {"mode": self.current_mode(), "tools": self.registry.activated(),
                       "todos": self.ctx.extra.get("todos")}

    # -- agent callbacks ---------------------------------------------------------------------
    def on_user_turn(self, turn: UserTurn) -> None:
        self._user_turn = turn

    def on_message(self, message: dict[str, Any]) -> None:
        if message.get("role") == "user" and not self.in_turn:
            self.in_turn = True
            self.turns += 1
            turn, self._user_turn = self._user_turn, None
            words = turn.text if turn is not None else _text(message.get("content"))
            self.checkpointer.begin_turn(self.turns, words)
            # a turn that attached files or pictures records the user's words: listings show them,
            # never re-read from the rendered message
            asked = {"asked": words} if turn is not None and (turn.attachments or turn.images) else {}
            self.meta("turn", n=self.turns, ts=time.strftime("%Y-%m-%dT%H:%M:%S"), **asked)
        self.note(message)

    def note(self, message: dict[str, Any]) -> None:
        """Record a message that joined the history without starting a turn."""
        index = self._safely(lambda: self.transcript.append(message))
        if index is not None:
            self._index[id(message)] = (index, message)
        self.sync_state()

    def sync_state(self) -> None:
        """Log the mode, activated tools and todos when they changed (resume restores them)."""
        now = {"mode": self.current_mode(), "tools": self.registry.activated(),
               "todos": self.ctx.extra.get("todos")}
        if now["mode"] != self._state.get("mode"):
            self.meta("mode", mode=now["mode"])
        if now["tools"] != self._state.get("tools", []):
            self.meta("tools", activated=now["tools"])
        if now["todos"] != self._state.get("todos"):
            self.meta("todos", todos=now["todos"] or [])
        self._state = {**now, "todos": list(now["todos"]) if now["todos"] is not None else None}

    def before_request(self, agent: Loop) -> None:
        while self.waiting:
            self.waiting.pop()()
        self.compactor.before_request(agent)
        self.refresh_system_prompt(agent)

    def refresh_system_prompt(self, agent: Loop) -> None:
        """Keep the system prompt current (mode, activated tools, a resumed session's environment)."""
        if not agent.messages or agent.messages[0].get("role") != "system":
            return
        prompt = agent.system_prompt()
        if agent.messages[0].get("content") != prompt:
            agent.messages[0] = {"role": "system", "content": prompt}
            self.meta("system", content=prompt)

    def on_context_too_long(self, agent: Loop) -> bool:
        return self.compactor.on_context_too_long(agent)

    def cost(self, agent: Loop) -> float | None:
        self.log_usage(agent)
        return self.meter.update(agent.llm.usage)

    def log_usage(self, agent: Loop) -> None:
        usage = agent.llm.usage
        prompt = usage.prompt_tokens - self._logged_usage[0]
        completion = usage.completion_tokens - self._logged_usage[1]
        if prompt or completion:
            self._logged_usage = (usage.prompt_tokens, usage.completion_tokens)
            self.meta("usage", prompt_tokens=prompt, completion_tokens=completion, model=usage_model(agent))

    def after_turn(self, agent: Loop, result: RunResult) -> None:
        self.in_turn = False
        for end in self.turn_end:
            try:
                end()
            except Exception as e:  # noqa: BLE001 - a failing clean-up must not end the session
                self.emit(Notice(message=f"end of turn: {e}"))
        self.log_usage(agent)
        self.sync_state()
        try:
            self.checkpointer.end_turn()
        except Exception as e:      # a failed snapshot must not end the session
            self.emit(Notice(message=f"cannot record the snapshot of this turn ({e})"))

    # -- compaction log ------------------------------------------------------------------------
    def _compacted(self, messages: list[dict[str, Any]], result: CompactionResult) -> None:
        self.sync_state()
        view: list[Any] = []
        kept: dict[int, tuple[int, dict[str, Any]]] = {}
        for m in messages:
            entry = self._index.get(id(m))
            if entry is not None and entry[1] is m:
                view.append(entry[0])
                kept[id(m)] = entry
            else:
                view.append(m)
        self._index = kept
        self.meta("compaction", method=result.method, before_tokens=result.before_tokens,
                  after_tokens=result.after_tokens, view=view)


def _text(content: Any) -> str:
    """A message's text (content may be a list of parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def usage_model(agent: Loop) -> str:
    return str(agent.llm.settings.model)
