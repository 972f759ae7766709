"""Tool-call protocols (native | text | auto) and prompt profiles; what text and auto share (text calls
recognised, results framed, the notes for weak replies) is in ``textbase``.

- ``native``: tools go in the request's ``tools`` field; calls come back as ``tool_calls``.
- ``text``: no ``tools`` field; the system prompt describes the tools and the model writes
  ``<tool_call>{…}</tool_call>`` blocks (see ``textcalls``). Results go back as one user message of
  ``<tool_response name="…">…</tool_response>`` blocks; the assistant message in the history is
  the text as the model wrote it. Unusable tagged calls are reported back as errors.
- ``auto``: native, but a reply without native calls that holds a well-formed text call for an
  active tool is treated as that call (a Notice event says so); the system prompt shows the text
  call format as a fall-back.
- ``native`` (``NativeProtocol`` from ``make_protocol``): native, and a reply that is nothing but
  text calls (tagged, or call-shaped JSON: ``callshapes``) is treated as those calls too.

The text tool prompt is in the model family's own format (``toolprompt``). In text and auto, and in
native for a reply made only of calls, unusable calls are reported back to the model.

Every text call still goes through the Dispatcher (validation, permissions, audit): no shortcut.
"""

from __future__ import annotations

import logging
from typing import Any

from axon_cli.agent.model.endpoints import is_local_endpoint
from axon_cli.agent.model.llm import AssistantTurn, LLMClient
from axon_cli.agent.protocols.interface import NATIVE_HINT, TEXT_HINT, NativeProtocol, ToolProtocol
from axon_cli.agent.protocols.textbase import (
    ALREADY_DONE,
    FIX_STEP,
    NEXT_STEP,
    REPEATED,
    SAVED,
    SEARCH_AGAIN,
    SEARCH_NOTE,
    TextCalls,
)
from axon_cli.agent.protocols.toolprompt import (
    auto_block,
    compact_tool,
    family_for,
    later_native_tools,
    later_tools,
    tools_block,
)
from axon_cli.kernel.events import EventSink, Notice
from axon_cli.settings.config import Settings
from axon_cli.tools.dispatch import CallResult
from axon_cli.tools.registry import ToolRegistry

__all__ = ["TextProtocol", "AutoProtocol", "CompactNativeProtocol", "make_protocol", "system_block", "family",
           "apply_profile", "configure", "compact_tools", "COMPACT_CORE", "TEXT_STOP", "NEXT_STEP", "FIX_STEP", "SEARCH_AGAIN", "SEARCH_NOTE", "REPEATED", "SAVED", "ALREADY_DONE"]

log = logging.getLogger("axon.protocol")
COMPACT_CORE = ("read_file", "write_file", "edit_file", "bash", "tool_search")   # small models create files
TEXT_STOP = ["<tool_response"]


class TextProtocol(TextCalls):
    call_hint = TEXT_HINT
    name = "text"

    def __init__(self, registry: ToolRegistry, detailed: bool = True, family: str = "default") -> None:
        super().__init__()
        self._registry = registry
        self._detailed = detailed
        self.family = family
        self._head: list[str] | None = None
        self._described: set[str] = set()

    def system_block(self, registry: ToolRegistry) -> str:
        """The tools active when the first request was sent, every time (the prompt's head stays the
        same for the server's prefix cache); tools activated later follow their results."""
        if self._head is None:
            self._head = [s.name for s in registry.active()]
            self._described = set(self._head)
        specs = [s for s in registry.active() if s.name in self._head]
        # the family's own tool-prompt wording: small models trained on it call tools far more often
        return tools_block(specs, self.family, self._detailed)

    def tools_param(self, registry: ToolRegistry) -> list[dict[str, Any]] | None:
        return None

    def extract_calls(self, turn: AssistantTurn, registry: ToolRegistry) -> AssistantTurn:
        invented = turn.content.find("<tool_response")
        if invented >= 0:   # the model wrote a result itself: drop it and what follows
            turn.content = turn.content[:invented].rstrip()
        calls, errors = self._text_calls(turn, registry)
        turn.tool_calls = [*turn.tool_calls, *self._without_done_edits(calls, errors)]
        turn.call_errors = errors
        return turn

    def result_messages(self, turn: AssistantTurn, results: list[CallResult]) -> list[dict[str, Any]]:
        """Results framed for small models (``_framed_results``), after the tools activated since."""
        new = [s for s in self._registry.active() if s.name not in self._described] if self._registry else []
        extra = []
        if new:
            self._described.update(s.name for s in new)
            extra.append(later_tools(new, self.family, self._detailed))
        return self._framed_results(turn, results, extra)


class AutoProtocol(TextCalls):
    """Native tools; a reply without native calls may hold text calls. ``strict`` (the ``native``
    protocol): only a reply of nothing but calls, or ``<tool_call>`` tags, and no prompt note."""

    call_hint = NATIVE_HINT

    def __init__(self, emit: EventSink | None = None, compact: bool = False, family: str = "default",
                 strict: bool = False, stable_head: bool = False) -> None:
        super().__init__()
        self._emit = emit or (lambda _e: None)
        self._compact = compact
        self.family = family
        self.strict = strict
        # A local server re-evaluates its prompt from the first byte that changed, and the chat
        # template puts the tools first: with ``stable_head`` the tools sent first are the tools
        # sent, and tools activated later are described after the results that activated them
        # (callable all the same), as the text protocol does.
        self.stable_head = stable_head
        self._head: list[str] | None = None
        self._described: set[str] = set()

    @property
    def name(self) -> str:
        return "native" if self.strict else "auto"

    def system_block(self, registry: ToolRegistry) -> str:
        return "" if self.strict else auto_block(registry.active(), self.family)

    def tools_param(self, registry: ToolRegistry) -> list[dict[str, Any]] | None:
        specs = registry.active()
        if self.stable_head:
            if self._head is None:
                self._head = [s.name for s in specs]
                self._described = set(self._head)
            specs = [s for s in specs if s.name in self._head]
        return [compact_tool(s) if self._compact else s.openai_tool() for s in specs] or None

    def extract_calls(self, turn: AssistantTurn, registry: ToolRegistry) -> AssistantTurn:
        self._registry = registry
        if turn.tool_calls:
            return turn
        # malformed text among prose is never reported; a reply of nothing but calls is. A fenced
        # call among prose is run only when the user asked for a change (a small model shows the
        # exact edit it means to make and explains it; "how would I call X?" is never run)
        prose = self._change_task and not self.strict
        calls, errors = self._text_calls(turn, registry, prose=prose, whole_only=self.strict)
        calls = self._without_done_edits(calls, errors)
        if calls:
            names = ", ".join(c.name for c in calls)
            log.debug("treated a text tool call as a call: %s", names)
            self._emit(Notice(message=f"treated a text tool call as a call ({names})"))
            turn.tool_calls = calls
        turn.call_errors = errors
        return turn

    def result_messages(self, turn: AssistantTurn, results: list[CallResult]) -> list[dict[str, Any]]:
        extra = []
        if self.stable_head and self._head is not None and self._registry is not None:
            new = [s for s in self._registry.active() if s.name not in self._described]
            if new:
                self._described.update(s.name for s in new)
                extra.append(later_native_tools(new, self._compact))
        return self._framed_results(turn, results, extra)


class CompactNativeProtocol(NativeProtocol):
    """Native calls with one-line tool and parameter descriptions."""

    def tools_param(self, registry: ToolRegistry) -> list[dict[str, Any]] | None:
        return compact_tools(registry) or None


def compact_tools(registry: ToolRegistry) -> list[dict[str, Any]]:
    return [compact_tool(s) for s in registry.active()]


def family(settings: Settings) -> str:
    """The text tool-prompt family of the configured model (``tool_formats``, then the built-in table)."""
    return family_for(settings.model, settings.tool_formats)


def make_protocol(settings: Settings, registry: ToolRegistry, emit: EventSink | None = None) -> ToolProtocol:
    compact = settings.prompt_profile == "compact"
    log.debug("tool protocol %s, profile %s, model %s: text prompt family %s", settings.tool_protocol,
              settings.prompt_profile, settings.model, family(settings))
    if settings.tool_protocol == "text":
        return TextProtocol(registry, detailed=not compact, family=family(settings))
    return AutoProtocol(emit, compact=compact, family=family(settings), strict=settings.tool_protocol == "native",
                        stable_head=is_local_endpoint(settings.base_url))


def system_block(protocol: ToolProtocol, registry: ToolRegistry) -> str:
    """What the protocol adds to the system prompt (the tool list for text, the call format for auto)."""
    block = getattr(protocol, "system_block", None)
    return block(registry) if callable(block) else ""


def apply_profile(registry: ToolRegistry, settings: Settings) -> None:
    """The compact profile keeps only ``COMPACT_CORE`` active; tool_search finds the rest."""
    if settings.prompt_profile == "compact":
        registry.demote([n for n in registry.names() if n not in COMPACT_CORE])


def configure(settings: Settings, registry: ToolRegistry, llm: LLMClient,
              emit: EventSink | None = None) -> ToolProtocol:
    """Apply the prompt profile and pick the protocol (the text one also stops at an invented result)."""
    apply_profile(registry, settings)
    if settings.tool_protocol == "text":
        llm.extra_params["stop"] = list(TEXT_STOP)
    return make_protocol(settings, registry, emit)
