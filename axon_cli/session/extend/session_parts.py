"""What every sub-agent of a session shares with it (``SessionParts``), apart from the machinery
that runs one (``subagent.py``): the ``task`` tool is registered in every session, and the runtime
builds these parts, while the sub-agent itself loads only when ``task`` is called."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from axon_cli.agent.model.llm import LLMClient
    from axon_cli.kernel.events import Approver, EventSink
    from axon_cli.machinery.snapshots.basics import Checkpointer
    from axon_cli.policy.base import PermissionPolicy
    from axon_cli.session.conversation.context import PromptContext
    from axon_cli.settings.config import Settings
    from axon_cli.tools.registry import ToolRegistry
    from axon_cli.tools.tool_hooks import ToolHooks

__all__ = ["SessionParts"]


@dataclass
class SessionParts:
    """What every sub-agent of a session shares with it."""

    project_root: Path
    session_id: str
    settings: Settings
    registry: ToolRegistry
    policy: PermissionPolicy
    approver: Callable[[], Approver]       # the current approver (the REPL may replace it)
    hooks: ToolHooks | None
    llm: LLMClient
    cancel: threading.Event
    checkpointer: Checkpointer
    emit: EventSink
    gathered: PromptContext              # the environment and AGENTS.md, gathered once per session
    usage_lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
