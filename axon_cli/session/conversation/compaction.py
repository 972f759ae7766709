"""Compaction: keep the history the model sees under ``compact_at * context_window`` tokens.

Two steps, cheapest first:

1. *Elide* old large tool results (and large arguments of old tool calls, e.g. a write_file's
   content): keep the most recent ones and every file's latest read_file result; replace the rest
   with a short ``[elided: N chars; …]`` note. tool_call ids stay paired.
2. If still over, *summarise* the older turns with the model (a summary prompt, no tools) into one
   message that keeps the task, decisions, files touched and open todos; the system prompt and the
   recent turns are kept verbatim, and an assistant message is never split from its tool results.

A failing summary is retried at most ``MAX_SUMMARY_ATTEMPTS`` times (each with less text), then
given up on for this request with a Notice. Without a summary the history still has to fit: the
fallback (``compaction_fallback``) elides all old tool output, then drops the oldest turns (a tool
call kept with its results) behind one note, and says so in a Notice. The transcript
keeps the full history; ``on_compacted`` receives the new history so the session can log it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from axon_cli.kernel.errors import LLMError
from axon_cli.kernel.events import Compacted, EventSink, Notice
from axon_cli.kernel.loaders import json_value
from axon_cli.kernel.prompts import load_template
from axon_cli.session.conversation.compaction_text import (
    ELIDED_PREFIX,
    SUMMARY_PREFIX,
    approx_tokens,
    elide_arguments,
    last_request,
    message_chars,
    render_conversation,
    summary_message,
)
from axon_cli.settings.config import Settings

if TYPE_CHECKING:
    from axon_cli.agent.loop.seams import Loop
    from axon_cli.session.conversation.compaction_fallback import drop_oldest, split_point

__all__ = ["Compactor", "CompactionResult", "elide", "split_point", "drop_oldest", "MAX_SUMMARY_ATTEMPTS"]

MAX_SUMMARY_ATTEMPTS = 3
ELIDE_MIN_CHARS = 600          # smaller tool results are not worth eliding
KEEP_RECENT_RESULTS = 3        # the most recent tool results are never elided (automatically)
ELIDE_TARGET = 0.6             # elision aims at this share of the trigger
KEEP_SHARE = 0.35              # recent messages kept verbatim by a summary: this share of the trigger
COOLDOWN_REQUESTS = 3          # after a failed summary, automatic attempts pause for this many requests


@dataclass
class CompactionResult:
    before_tokens: int
    after_tokens: int
    method: str                # "elide", "summary", "elide+summary", "elide+drop" (no summary came)

    def line(self) -> str:
        return (f"compacted the history ({self.method}): about {self.before_tokens:,} → "
                f"{self.after_tokens:,} tokens")


def _call_index(messages: list[dict[str, Any]]) -> dict[str, tuple[str, dict[str, Any]]]:
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    for msg in messages:
        for call in msg.get("tool_calls") or []:
            fn = call.get("function") or {}
            try:
                args = json_value(fn.get("arguments") or "{}")
            except ValueError:
                args = {}
            calls[str(call.get("id"))] = (str(fn.get("name", "")), args if isinstance(args, dict) else {})
    return calls


def elide(messages: list[dict[str, Any]], goal_tokens: int, *, keep_recent: int = KEEP_RECENT_RESULTS,
          protect_reads: bool = True) -> tuple[list[dict[str, Any]], int]:
    """Elide old large tool results, oldest first, until the estimate is at most ``goal_tokens``.
    Returns the new list (changed messages are new dicts) and how many were elided."""
    calls = _call_index(messages)
    tool_positions = [i for i, m in enumerate(messages) if m.get("role") == "tool"]
    protected = set(tool_positions[-keep_recent:]) if keep_recent else set()
    if protect_reads:
        latest_read: dict[str, int] = {}
        for i in tool_positions:
            name, args = calls.get(str(messages[i].get("tool_call_id")), ("", {}))
            if name == "read_file" and isinstance(args.get("path"), str):
                latest_read[args["path"]] = i
        protected |= set(latest_read.values())
    assistants = [i for i, m in enumerate(messages) if m.get("tool_calls")]
    protected |= set(assistants[-keep_recent:]) if keep_recent else set()
    out = list(messages)
    chars = sum(message_chars(m) for m in messages)
    count = 0
    for i, msg in enumerate(messages):
        if chars // 4 <= goal_tokens:
            break
        if i in protected:
            continue
        new = _elided(msg, calls)
        if new is not None:
            out[i] = new
            chars -= message_chars(msg) - message_chars(new)
            count += 1
    return out, count


def _elided(msg: dict[str, Any], calls: dict[str, tuple[str, dict[str, Any]]]) -> dict[str, Any] | None:
    content = msg.get("content")
    if msg.get("role") == "tool":
        if not isinstance(content, str) or len(content) <= ELIDE_MIN_CHARS or content.startswith(ELIDED_PREFIX):
            return None
        name, args = calls.get(str(msg.get("tool_call_id")), ("tool", {}))
        what = ", ".join(f"{k}={str(v)[:60]}" for k, v in list(args.items())[:2])
        return {**msg, "content": (f"{ELIDED_PREFIX} {len(content)} chars of old {name}({what}) output "
                                   "removed to save context; call the tool again if you need it]")}
    if msg.get("tool_calls"):
        return elide_arguments(msg, ELIDE_MIN_CHARS)
    return None


def _fixed_tokens(agent: Loop) -> int:
    """What every request carries besides the messages: tool schemas and the project context."""
    return (len(json.dumps(agent.registry.openai_tools())) + len(agent.project_context())) // 4


class Compactor:
    def __init__(self, settings: Settings, emit: EventSink, *,
                 todos: Callable[[], list[dict[str, Any]] | None] = lambda: None,
                 on_compacted: Callable[[list[dict[str, Any]], CompactionResult], None] | None = None) -> None:
        self.settings = settings
        self.emit = emit
        self.todos = todos
        self.on_compacted = on_compacted
        self.before_compact: Callable[[bool, str | None], None] | None = None   # PreCompact hooks (manual, focus)
        self._mark: tuple[int, int, int] | None = None   # (messages, requests, prompt total) at a request
        self._cooldown = 0

    # -- measuring -----------------------------------------------------------------------------
    @property
    def trigger(self) -> int:
        return int(self.settings.compact_at * self.settings.context_window)

    def measure(self, agent: Loop) -> int:
        """The prompt tokens the next request would take: the last request's reported count plus an
        estimate of what was added since, or an estimate of everything (chars / 4)."""
        usage = agent.llm.usage
        if self._mark is not None:
            n, requests, prompt_total = self._mark
            if usage.requests == requests + 1 and usage.prompt_tokens > prompt_total \
                    and usage.last_prompt_tokens and n <= len(agent.messages):
                return usage.last_prompt_tokens + approx_tokens(agent.messages[n:])
        return approx_tokens(agent.messages) + _fixed_tokens(agent)

    # -- agent callbacks ---------------------------------------------------------------------
    def before_request(self, agent: Loop) -> None:
        if self.measure(agent) > self.trigger:
            self.compact(agent, summarise=self._cooldown == 0)
        self._cooldown = max(0, self._cooldown - 1)
        usage = agent.llm.usage
        self._mark = (len(agent.messages), usage.requests, usage.prompt_tokens)

    def on_context_too_long(self, agent: Loop) -> bool:
        result = self.compact(agent, force=True)
        if result is not None:
            usage = agent.llm.usage
            self._mark = (len(agent.messages), usage.requests, usage.prompt_tokens)
        return result is not None

    # -- the work ------------------------------------------------------------------------------
    def compact(self, agent: Loop, *, force: bool = False, summarise: bool = True,
                focus: str | None = None, manual: bool = False) -> CompactionResult | None:
        """Shrink ``agent.messages``; None when nothing could be done. ``force``: the endpoint said
        too long (go under the goal whatever it takes); ``manual``: /compact (always summarise)."""
        if self.before_compact is not None:
            self.before_compact(manual, focus)
        before = self.measure(agent)
        fixed = _fixed_tokens(agent)
        # estimates are chars / 4; scale them to the endpoint's real count when it was measured
        scale = min(3.0, max(0.5, before / max(1, approx_tokens(agent.messages) + fixed)))
        goal = max(0, int(self.trigger * ELIDE_TARGET / scale) - fixed)     # in estimated message tokens
        keep = int(self.trigger * KEEP_SHARE / scale)
        if force:   # the endpoint's real limit is lower than we thought: halve whatever we have
            goal = min(goal, approx_tokens(agent.messages) // 2)
            keep = min(keep, goal // 2)
        messages, elided = (agent.messages, 0) if manual else elide(agent.messages, goal)
        methods = ["elide"] if elided else []
        if (manual or approx_tokens(messages) > goal) and (summarise or force or manual):
            summarised = self._summarise(agent, messages, focus, keep)
            if summarised is not None:
                messages = summarised
                methods.append("summary")
        if force and approx_tokens(messages) > goal:
            messages, more = elide(messages, goal, keep_recent=1, protect_reads=False)
            if more and "elide" not in methods:
                methods.insert(0, "elide")
        if not manual and "summary" not in methods and approx_tokens(messages) > goal:
            messages = self._fallback(messages, goal, methods)
        if not methods:
            return None
        agent.messages[:] = messages
        self._mark = None
        result = CompactionResult(before, int((approx_tokens(messages) + fixed) * scale), "+".join(methods))
        self.emit(Compacted(before_tokens=result.before_tokens, after_tokens=result.after_tokens,
                            method=result.method))
        if self.on_compacted is not None:
            self.on_compacted(messages, result)
        return result

    def _fallback(self, messages: list[dict[str, Any]], goal: int, methods: list[str]) -> list[dict[str, Any]]:
        """No summary, still too long: elide all old tool output, then drop the oldest turns."""
        from axon_cli.session.conversation.compaction_fallback import drop_oldest

        messages, elided = elide(messages, goal, keep_recent=1, protect_reads=False)
        messages, dropped = drop_oldest(messages, goal, self.todos()) if approx_tokens(messages) > goal \
            else (messages, 0)
        if elided and "elide" not in methods:
            methods.insert(0, "elide")
        if dropped:
            methods.append("drop")
        if elided or dropped:
            self.emit(Notice(message=f"the history was not summarised and did not fit the context window: "
                                     f"elided old tool output and dropped the {dropped} oldest messages "
                                     "(each tool call kept with its results)"))
        return messages

    def _summarise(self, agent: Loop, messages: list[dict[str, Any]], focus: str | None,
                   keep_tokens: int) -> list[dict[str, Any]] | None:
        from axon_cli.session.conversation.compaction_fallback import split_point

        keep = split_point(messages, keep_tokens)
        head = 1 if messages and messages[0].get("role") == "system" else 0
        old = messages[head:keep]
        if not old or (len(old) == 1 and str(old[0].get("content", "")).startswith(SUMMARY_PREFIX)):
            return None
        request_kept = bool(last_request(messages[keep:]))
        budget_chars = int(self.settings.context_window * 0.5) * 4
        todos = self.todos()
        error = ""
        for attempt in range(MAX_SUMMARY_ATTEMPTS):
            text = render_conversation(old, budget_chars >> attempt)
            request = load_template("compact_request.md").format(
                focus=f"\nFocus especially on: {focus}\n" if focus else "",
                todos=json.dumps(todos, ensure_ascii=False) if todos else "none recorded",
                conversation=text)
            try:
                turn = agent.llm.complete([{"role": "system", "content": load_template("compact_system.md")},
                                           {"role": "user", "content": request}], None)
            except LLMError as e:
                error = str(e)
                continue
            if turn.content.strip():
                summary = summary_message(turn.content.strip(), old, todos, include_request=not request_kept)
                return [*messages[:head], summary, *messages[keep:]]
            error = "the model returned an empty summary"
        self._cooldown = COOLDOWN_REQUESTS
        self.emit(Notice(message=f"could not summarise the history after {MAX_SUMMARY_ATTEMPTS} attempts "
                                 f"({error[:160]})"))
        return None


def __getattr__(name: str) -> Any:
    """``split_point`` and ``drop_oldest`` (re-exported) load with the first compaction, not at start-up."""
    if name in ("split_point", "drop_oldest"):
        from axon_cli.session.conversation import compaction_fallback
        return getattr(compaction_fallback, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
