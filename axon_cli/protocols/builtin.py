"""Tool-call protocols (native | text | auto), prompt profiles, and the nudges for weak replies.

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

import dataclasses
import itertools
import logging
from typing import Any

from axon_cli.config import Settings
from axon_cli.events import EventSink, Notice
from axon_cli.model.debuglog import shown
from axon_cli.model.endpoints import is_local_endpoint
from axon_cli.model.llm import AssistantTurn, LLMClient
from axon_cli.protocols.callfacts import call_key
from axon_cli.protocols.interface import NATIVE_HINT, TEXT_HINT, NativeProtocol, ToolProtocol
from axon_cli.protocols.taskkind import is_change_task
from axon_cli.protocols.toolprompt import (
    auto_block,
    compact_tool,
    family_for,
    later_native_tools,
    later_tools,
    tools_block,
)
from axon_cli.tools.dispatch import CallResult, ToolCall
from axon_cli.tools.ledger import CallLedger, Refusal
from axon_cli.tools.registry import ToolRegistry

__all__ = ["TextProtocol", "AutoProtocol", "CompactNativeProtocol", "make_protocol", "system_block", "family",
           "apply_profile", "configure", "compact_tools", "COMPACT_CORE", "TEXT_STOP", "NEXT_STEP", "FIX_STEP", "SEARCH_AGAIN", "SEARCH_NOTE", "REPEATED", "SAVED", "ALREADY_DONE"]

log = logging.getLogger("axon.protocol")
COMPACT_CORE = ("read_file", "write_file", "edit_file", "bash", "tool_search")   # small models create files
TEXT_STOP = ["<tool_response"]
NEXT_STEP = "If these results complete the task, answer the user in plain text now; otherwise make the next call."
FIX_STEP = "The call failed: do not answer yet; make the next call as the error says."
SEARCH_AGAIN = ("Nothing was found: before you answer, look another way (another pattern, ignore_case true, "
                "list_files, or read_file of a file you expect it in).")
SEARCH_NOTE = "Nothing was found: before you answer, take the step the note in [brackets] above suggests."
SAVED = "Saved: the file is already changed. This diff only shows the change; do not write it into the file:"
ALREADY_DONE = ("Error: this exact {name} call was already applied successfully in this turn, so it "
                "was not run again. If the task is done, answer the user in plain text now.")
CALL_MARKS = ("{", "<", "&")   # every text call has one (JSON or Python braces, a tag, an HTML-escaped tag)
REPEATED = "You made the same call{s} as in your previous reply. Do not repeat {it}: use the result{s} above."


def _result_messages(turn: AssistantTurn, results: list[CallResult],
                     extra: list[str] | None = None) -> list[dict[str, Any]]:
    """Native results as tool messages; text results (and ``extra`` notes) as one user message."""
    sources = {c.id: c.source for c in turn.tool_calls}
    messages: list[dict[str, Any]] = []
    blocks: list[str] = []
    for r in results:
        if sources.get(r.call_id, "native") == "native":
            messages.append({"role": "tool", "tool_call_id": r.call_id, "content": r.content})
        else:
            blocks.append(f'<tool_response name="{r.name}">\n{r.content}\n</tool_response>')
    blocks.extend(f"<tool_response>\n{e}\n</tool_response>" for e in turn.call_errors)
    blocks.extend(extra or [])
    if blocks:
        messages.append({"role": "user", "content": "\n".join(blocks)})
    return messages


class _TextCalls:
    """Shared by text and auto: turns text calls into ToolCalls with ids ``text_call_N``."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self._registry: ToolRegistry | None = None
        self._last_calls: list[str] = []
        self._ledger: CallLedger | None = None   # the agent's (bind); a protocol used alone keeps its own
        self._own_ledger = False
        self._told_to_search = False       # SEARCH_AGAIN was sent in this turn
        self._change_task = False          # this turn's task asks for a change (see AutoProtocol)

    def bind(self, ledger: CallLedger) -> None:
        self._ledger, self._own_ledger = ledger, False

    def _calls_ledger(self, registry: ToolRegistry) -> CallLedger:
        if self._ledger is None:
            self._ledger, self._own_ledger = CallLedger(registry), True
        return self._ledger

    def new_turn(self, task: str = "") -> None:
        if self._own_ledger and self._ledger is not None:
            self._ledger.new_turn()
        self._last_calls = []
        self._told_to_search = False
        self._change_task = is_change_task(task)

    def _text_calls(self, turn: AssistantTurn, registry: ToolRegistry, prose: bool = True,
                    whole_only: bool = False) -> tuple[list[ToolCall], list[str]]:
        """Calls and errors; ``prose`` False: errors only when the reply held nothing but calls, and no
        fenced call among prose; ``whole_only``: calls only from such a reply or ``<tool_call>`` tags."""
        if not any(mark in turn.content for mark in CALL_MARKS):   # no call can be in it: the parser stays unloaded
            if "```" in turn.content:
                log.debug("no text call recognised: the reply's JSON or code is not exactly a call")
            return [], []
        from axon_cli.protocols.textcalls import parse_text_calls

        parsed = parse_text_calls(turn.content, registry, turn.finish_reason, prose_fences=prose)
        opened = parsed.prose_from is not None or any(r.startswith("reply opens") for r in parsed.rules)
        found = [c for c, rule in zip(parsed.calls, parsed.rules, strict=True)
                 if parsed.whole or opened or not whole_only or rule.startswith("<tool_call>")]
        errors = parsed.errors if prose or parsed.whole or opened else []
        if found and parsed.prose_from is not None:   # what follows the calls narrates an imagined result
            log.debug("dropped the prose after the opening calls: %s", shown(turn.content[parsed.prose_from:], 300))
            turn.content = turn.content[:parsed.prose_from].rstrip()
        for (name, _args), rule in zip(parsed.calls, parsed.rules, strict=True):
            log.debug("text call %s recognised by rule [%s]%s", name, rule, "" if (name, _args) in found else
                      " (not run: this protocol takes only tagged calls or a reply of nothing but calls)")
        for error, rule in zip(parsed.errors, parsed.error_rules, strict=True):
            log.debug("text call error by rule [%s]%s: %s", rule, "" if errors else
                      " (not reported: malformed text among prose)", shown(error, 600))
        if not parsed.calls and not parsed.errors and ("{" in turn.content or "```" in turn.content):
            log.debug("no text call recognised: the reply's JSON or code is not exactly a call")
        calls = [ToolCall.of(f"text_call_{next(self._ids)}", name, args) for name, args in found]
        return calls, errors


    def _without_done_edits(self, calls: list[ToolCall], errors: list[str]) -> list[ToolCall]:
        """A small model re-sends an edit already applied in this turn: not run again (an insertion
        would be made twice); a change written after a read in the same reply waits for the read
        (``callorder``)."""
        if self._registry is None:
            return calls
        ledger = self._calls_ledger(self._registry)
        if not calls:
            return calls
        # loaded when a text call is made
        from axon_cli.protocols.callorder import hold_blind_changes

        repeats = [c for c in calls if ledger.applied(c)]
        for call in repeats:
            ledger.refuse(call, Refusal.APPLIED)
        errors.extend(ALREADY_DONE.format(name=c.name) for c in repeats)
        calls, held = hold_blind_changes([c for c in calls if c not in repeats], ledger)
        errors.extend(held)
        return calls

    def _framed_results(self, turn: AssistantTurn, results: list[CallResult],
                        extra: list[str]) -> list[dict[str, Any]]:
        """Text calls' results, then (for small models) what to do with them: a repeated call is
        pointed out, and the model is told to answer once the task is complete rather than act on
        the result again. Results of native calls stay plain tool messages."""
        texts = {c.id for c in turn.tool_calls if c.source != "native"}
        calls = [call_key(c) for c in turn.tool_calls]
        if self._own_ledger and self._ledger is not None:   # used alone: no loop records the calls
            by_id = {c.id: c for c in turn.tool_calls}
            for r in results:
                if r.call_id in by_id:
                    self._ledger.record(by_id[r.call_id], r)
        if texts and calls == self._last_calls:
            many = len(calls) > 1
            extra.append(REPEATED.format(s="s" if many else "", it="them" if many else "it"))
        self._last_calls = calls
        answered = [r for r in results if r.call_id in texts]
        if answered:   # after an error a small model otherwise tells the user what it should have done
            empty = all(r.found_nothing for r in answered) and not self._told_to_search
            self._told_to_search |= empty          # once per turn: "not found" may be the answer
            noted = any("\n[" in r.content for r in answered)      # the tool says what to do instead
            extra.append(FIX_STEP if not all(r.ok for r in answered) else
                         (SEARCH_NOTE if noted else SEARCH_AGAIN) if empty else NEXT_STEP)
        return _result_messages(turn, [self._framed(r) if r.call_id in texts else r for r in results], extra)

    def _framed(self, result: CallResult) -> CallResult:
        """A successful edit says it is saved: a small model otherwise writes the diff into the file."""
        if result.ok and self._is_edit(result.name) and result.content.startswith("---"):
            return dataclasses.replace(result, content=f"{SAVED}\n{result.content}")
        return result

    def _is_edit(self, name: str) -> bool:
        spec = self._registry.get(name) if self._registry is not None else None
        return spec is not None and spec.category == "edit"


class TextProtocol(_TextCalls):
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


class AutoProtocol(_TextCalls):
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
