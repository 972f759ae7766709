"""Builds a working session from settings: registry, context, policy, dispatcher, client, agent.

Frontends (``axon run``, ``axon chat``) call ``build_runtime`` and then only talk to the agent
through events and the approver.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from axon_cli.agent import Agent, Hooks
from axon_cli.config import LoadedSettings
from axon_cli.context import build_system_prompt
from axon_cli.events import Approver, Event, EventSink
from axon_cli.llm import LLMClient
from axon_cli.permissions.base import AllowAll, PermissionPolicy
from axon_cli.session import Transcript, new_session_id
from axon_cli.tools.dispatch import Dispatcher
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext

__all__ = ["Runtime", "build_runtime", "EventBus"]


class EventBus:
    """Fans events out to subscribers; a failing subscriber never breaks the core."""

    def __init__(self) -> None:
        self._subscribers: list[EventSink] = []

    def subscribe(self, sink: EventSink) -> None:
        self._subscribers.append(sink)

    def __call__(self, event: Event) -> None:
        for sink in list(self._subscribers):
            try:
                sink(event)
            except Exception:  # a frontend bug must not stop the agent
                import logging

                logging.getLogger("axon").exception("event subscriber failed")


class TranscriptHooks(Hooks):
    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript

    def on_message(self, message: dict[str, Any]) -> None:
        try:
            self.transcript.append(message)
        except OSError:
            pass


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

    def close(self) -> None:
        self.agent.close()


def make_policy(loaded: LoadedSettings, project_root: Path) -> PermissionPolicy:
    try:
        from axon_cli.permissions.policy import load_policy  # provided by the permissions layer
    except ImportError:
        return AllowAll()
    return load_policy(loaded, project_root)


def build_runtime(loaded: LoadedSettings, project_root: Path, approver: Approver,
                  session_id: str | None = None, messages: list[dict[str, Any]] | None = None) -> Runtime:
    settings = loaded.settings
    session_id = session_id or new_session_id()
    state_dir = project_root / ".axon"
    bus = EventBus()
    registry = ToolRegistry.with_builtins()
    ctx = ToolContext(project_root=project_root, state_dir=state_dir, session_id=session_id,
                      settings=settings, emit=bus, registry=registry)
    policy = make_policy(loaded, project_root)
    dispatcher = Dispatcher(registry, ctx, policy=policy, approver=approver, emit=bus)
    llm = LLMClient(settings, emit=bus)
    hooks = TranscriptHooks(Transcript(state_dir, session_id))
    agent = Agent(llm=llm, registry=registry, dispatcher=dispatcher, ctx=ctx,
                  system_prompt=lambda: build_system_prompt(project_root, settings, registry),
                  emit=bus, hooks=hooks, messages=messages)
    return Runtime(loaded, project_root, session_id, bus, registry, ctx, policy, dispatcher, llm, agent)
