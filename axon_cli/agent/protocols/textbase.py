"""What the text and auto protocols share (``TextCalls``): the text calls of a reply recognised
(``textcalls``, loaded only when a reply can hold one), an edit already applied in this turn refused
and a change written after a read held (``callorder``), and each batch of results framed for small
models: a repeated call pointed out, and the note on what to do next (answer, fix the call, search
again). The wording of those notes is here too; ``builtin`` re-exports it.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
from typing import Any

from axon_cli.agent.model.debuglog import shown
from axon_cli.agent.model.turns import AssistantTurn
from axon_cli.agent.protocols.callfacts import call_key
from axon_cli.agent.protocols.callhider import CallHider
from axon_cli.agent.protocols.taskkind import is_change_task
from axon_cli.tools.dispatch import CallResult, ToolCall
from axon_cli.tools.ledger import CallLedger, Refusal
from axon_cli.tools.registry import ToolRegistry

__all__ = ["NEXT_STEP", "FIX_STEP", "SEARCH_AGAIN", "SEARCH_NOTE", "REPEATED", "SAVED", "ALREADY_DONE", "CALL_MARKS"]

log = logging.getLogger("axon.protocol")
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


class TextCalls:
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
        from axon_cli.agent.protocols.textcalls import parse_text_calls

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


    def call_hider(self, registry: ToolRegistry) -> CallHider:
        """The filter that keeps this reply's text call bodies out of the streamed answer (the parser
        loads when a block that may be a call first appears, as for running calls)."""
        def is_call(block: str) -> bool:
            from axon_cli.agent.protocols.textcalls import parse_text_calls

            return bool(parse_text_calls(block, registry).calls)
        return CallHider(is_call)

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
        from axon_cli.agent.protocols.callorder import hold_blind_changes

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

