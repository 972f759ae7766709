"""What a frontend holds of a running session: the ``Runtime`` (the parts ``runtime.build_runtime``
wired, and what a frontend asks of them: undo, compact, cost, a model switch, closing) and the
``EventBus`` it subscribes to. The wiring itself stays in ``runtime.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from axon_cli.agent.loop.agent import Agent
from axon_cli.agent.model.llm import LLMClient
from axon_cli.kernel.errors import UsageError
from axon_cli.kernel.events import Event, EventSink
from axon_cli.machinery.sandbox import SandboxStatus
from axon_cli.machinery.snapshots import NOTHING_TO_UNDO, ProjectSnapshots
from axon_cli.policy.base import PermissionPolicy
from axon_cli.session.conversation.callbacks import SessionCallbacks
from axon_cli.session.extend.wiring import Extensions
from axon_cli.settings.config import LoadedSettings
from axon_cli.tools.dispatch import Dispatcher
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext

__all__ = ["Runtime", "EventBus"]


class EventBus:
    """Fans events out to subscribers; a failing subscriber never breaks the core. Events emitted
    before anyone subscribed (notices while the runtime is built) are kept and handed to the first
    subscriber, so a frontend that subscribes after ``build_runtime`` still shows them."""

    def __init__(self) -> None:
        self._subscribers: list[EventSink] = []
        self._early: list[Event] = []

    def subscribe(self, sink: EventSink) -> None:
        self._subscribers.append(sink)
        early, self._early = self._early, []
        for event in early:
            self._deliver(sink, event)

    def __call__(self, event: Event) -> None:
        if not self._subscribers:
            if len(self._early) < 200:
                self._early.append(event)
            return
        for sink in list(self._subscribers):
            self._deliver(sink, event)

    @staticmethod
    def _deliver(sink: EventSink, event: Event) -> None:
        try:
            sink(event)
        except Exception:  # a frontend bug must not stop the agent
            import logging

            logging.getLogger("axon").exception("event subscriber failed")


@dataclass
class Runtime:
    loaded: LoadedSettings
    project_root: Path
    session_id: str
    bus: EventBus
    registry: ToolRegistry
    ctx: ToolContext
    policy: PermissionPolicy
    dispatcher: Dispatcher
    llm: LLMClient
    agent: Agent
    extras: dict[str, Any] = field(default_factory=dict)
    session: SessionCallbacks | None = None
    extensions: Extensions = field(default_factory=Extensions)
    sandbox: SandboxStatus | None = None
    snapshots: ProjectSnapshots | None = None

    def _callbacks(self) -> SessionCallbacks:
        if self.session is None:
            raise UsageError("this runtime has no session")
        return self.session

    def undo(self, count: int = 1) -> list[str]:
        """Put back what the last ``count`` turns changed (files and shell effects alike, newest
        first, in this project); what happened, per file. The model is told."""
        callbacks = self._callbacks()
        if self.snapshots is None or (why := self.snapshots.unavailable()) is not None:
            return [f"nothing to undo: {why if self.snapshots else 'no snapshots in this session'}"]
        from axon_cli.machinery.snapshots import SnapshotError
        from axon_cli.machinery.snapshots.undo import undo_turns
        from axon_cli.session.conversation.session_lock import in_use_elsewhere
        from axon_cli.session.conversation.transcript import sessions_dir

        others = [s for s in self.snapshots.sessions_of_last(count) if s != self.session_id]
        if (busy := in_use_elsewhere(sessions_dir(self.ctx.state_dir), others, "undone")) is not None:
            return [busy]
        try:
            reports = undo_turns(self.snapshots, count)
        except (SnapshotError, OSError) as e:
            return [f"undo failed: {self.snapshots.trouble(e)}"]
        if not reports:
            return [NOTHING_TO_UNDO]
        lines = [line for r in reports for line in r.lines(self.session_id)]
        changed = [o for r in reports for o in r.outcomes if o.action != "skipped"]
        for o in changed:
            self.ctx.file_state.forget(self.project_root / o.path)
        if changed:
            note = {"role": "user", "content": "[axon: the user undid your changes of the last turn: "
                    + "; ".join(o.line().strip() for o in changed) + ". Read files again before editing them.]"}
            self.agent.messages.append(note)
            callbacks.note(note)
        return lines

    def compact(self, focus: str | None = None) -> str:
        """Summarise the history now (``/compact [focus]``); a one-line report."""
        result = self._callbacks().compactor.compact(self.agent, manual=True, focus=focus or None)
        return result.line() if result else "nothing to compact (the conversation is short, or the summary failed)"

    def cost_text(self) -> str:
        return self._callbacks().meter.text(self.llm.usage)

    def cost_usd(self) -> float | None:
        return self._callbacks().meter.update(self.llm.usage)

    def context_tokens(self) -> int:
        """About how many prompt tokens the next request takes (for a context gauge)."""
        return self._callbacks().compactor.measure(self.agent)

    def switch_model(self, name: str) -> None:
        self.loaded.settings.model = name
        self._callbacks().meta("model", model=name)

    def close(self) -> None:
        hooks = self.extensions.hooks if self.extensions is not None else None
        if hooks is not None:
            hooks.notify("SessionEnd", {"reason": "other"})
        from axon_cli.tools.builtin.bash.background import close_jobs

        close_jobs(self.ctx.extra)        # no background job outlives its session
        self.agent.close()
        mcp = self.extras.pop("mcp", None)
        if mcp is not None:
            mcp.close()
        if self.session is not None:
            self.session.transcript.release()     # another process may resume it now
