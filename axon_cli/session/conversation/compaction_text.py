"""Text helpers of compaction: token estimates, elided arguments, the conversation rendered for the
summary request, and the summary message that replaces the older turns."""

from __future__ import annotations

import json
from typing import Any

from axon_cli.kernel.loaders import json_value
from axon_cli.kernel.prompts import load_template

__all__ = ["ELIDED_PREFIX", "SUMMARY_PREFIX", "message_chars", "approx_tokens", "elide_arguments",
           "render_conversation", "summary_message", "files_touched", "last_request"]

ELIDED_PREFIX = "[elided:"
SUMMARY_PREFIX = "[Earlier conversation"
CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 16           # role, separators, ids: a few tokens per message
EDIT_TOOLS = ("write_file", "edit_file")
CHANGED_LABEL = "Files changed so far: "
READ_LABEL = "Files read so far: "
REQUEST_LABEL = "The user's latest request, verbatim:\n"


def _merge(first: list[str], second: list[str]) -> list[str]:
    return first + [p for p in second if p not in first]


IMAGE_CHARS = 3000   # what one picture counts for in the estimate (about 765 tokens), not its base64 length


def parts_text(content: list[Any]) -> str:
    """Content parts as text: their texts, a picture as ``[image]``."""
    return "\n".join(str(p.get("text", "")) if p.get("type") == "text" else "[image]"
                     for p in content if isinstance(p, dict))


def message_chars(message: dict[str, Any]) -> int:
    n = MESSAGE_OVERHEAD
    content = message.get("content")
    if isinstance(content, str):
        n += len(content)
    elif isinstance(content, list):
        pictures = sum(1 for p in content if isinstance(p, dict) and p.get("type") == "image_url")
        n += len(parts_text(content)) + pictures * IMAGE_CHARS
    elif content is not None:
        n += len(json.dumps(content))
    for call in message.get("tool_calls") or []:
        fn = call.get("function") or {}
        n += len(str(fn.get("name", ""))) + len(str(fn.get("arguments", ""))) + 30
    return n


def approx_tokens(messages: list[dict[str, Any]]) -> int:
    """An estimate of the prompt tokens of ``messages`` (chars / 4)."""
    return sum(message_chars(m) for m in messages) // CHARS_PER_TOKEN


def elide_arguments(message: dict[str, Any], min_chars: int) -> dict[str, Any] | None:
    """A copy of an assistant message whose long tool-call string arguments are elided (the JSON
    stays valid); None when nothing was long enough."""
    calls = []
    changed = False
    for call in message.get("tool_calls") or []:
        fn = dict(call.get("function") or {})
        raw = str(fn.get("arguments") or "")
        if len(raw) > min_chars:
            try:
                args = json_value(raw)
            except ValueError:
                args = None
            if isinstance(args, dict):
                slim = {k: (f"{ELIDED_PREFIX} {len(v)} chars]" if isinstance(v, str) and len(v) > 200 else v)
                        for k, v in args.items()}
                new_raw = json.dumps(slim, ensure_ascii=False)
                if len(new_raw) < len(raw):
                    fn["arguments"] = new_raw
                    changed = True
        calls.append({**call, "function": fn})
    return {**message, "tool_calls": calls} if changed else None


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = limit // 3
    return f"{text[:head]} […{len(text) - limit} chars cut…] {text[-(limit - head):]}"


def _render(message: dict[str, Any], names: dict[str, str], cap: int) -> str:
    role = message.get("role")
    content = message.get("content")
    text = content if isinstance(content, str) else parts_text(content) if isinstance(content, list) \
        else json.dumps(content) if content is not None else ""
    if role == "tool":
        name = names.get(str(message.get("tool_call_id")), "tool")
        return f"TOOL RESULT ({name}): {_clip(text, cap)}"
    if role == "assistant":
        lines = [f"ASSISTANT: {_clip(text, cap * 2)}"] if text else []
        for call in message.get("tool_calls") or []:
            fn = call.get("function") or {}
            lines.append(f"ASSISTANT CALLED {fn.get('name')}({_clip(str(fn.get('arguments', '')), cap)})")
        return "\n".join(lines)
    if role == "user" and text.startswith(SUMMARY_PREFIX):
        return f"EARLIER SUMMARY (merge it in): {text}"
    return f"{str(role).upper()}: {_clip(text, cap * 4)}"


def render_conversation(messages: list[dict[str, Any]], budget_chars: int) -> str:
    """The messages as plain text within about ``budget_chars``: long items are clipped more and
    more; as a last resort the middle of the conversation is cut (its start holds the task)."""
    names = {str(c.get("id")): str((c.get("function") or {}).get("name", ""))
             for m in messages for c in m.get("tool_calls") or []}
    cap = 2000
    while True:
        parts = [_render(m, names, cap) for m in messages]
        total = sum(len(p) + 2 for p in parts)
        if total <= budget_chars or cap <= 100:
            break
        cap //= 2
    text = "\n\n".join(parts)
    if len(text) > budget_chars:
        text = _clip(text, max(1000, budget_chars))
    return text


def files_touched(messages: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """(changed, read) file paths named by the tool calls in ``messages``, in first-seen order."""
    changed: list[str] = []
    read: list[str] = []
    for m in messages:
        for call in m.get("tool_calls") or []:
            fn = call.get("function") or {}
            try:
                path = json_value(fn.get("arguments") or "{}").get("path")
            except (ValueError, AttributeError):
                continue
            if not isinstance(path, str):
                continue
            bucket = changed if fn.get("name") in EDIT_TOOLS else read if fn.get("name") == "read_file" else None
            if bucket is not None and path not in bucket:
                bucket.append(path)
    return changed, [p for p in read if p not in changed]


def last_request(messages: list[dict[str, Any]]) -> str:
    """The user's latest real request in ``messages`` (an earlier summary carries it verbatim)."""
    for m in reversed(messages):
        content = m.get("content")
        if m.get("role") != "user" or not isinstance(content, str):
            continue
        if content.startswith(SUMMARY_PREFIX):
            _, _, request = content.partition(REQUEST_LABEL)
            if request:
                return request
        elif not content.startswith(("<tool_response", "Your reply was cut off", "[axon:")):
            return content
    return ""


def _earlier_files(messages: list[dict[str, Any]], label: str) -> list[str]:
    """File lists carried by earlier summaries among ``messages``."""
    out: list[str] = []
    for m in messages:
        content = m.get("content")
        if m.get("role") == "user" and isinstance(content, str) and content.startswith(SUMMARY_PREFIX):
            for line in content.splitlines():
                if line.startswith(label):
                    out += [p for p in line[len(label):].split(", ") if p and p not in out]
    return out


def summary_message(summary: str, old: list[dict[str, Any]], todos: list[dict[str, Any]] | None,
                    include_request: bool = True) -> dict[str, Any]:
    """The one message that stands for the summarised turns. Besides the model's summary it carries
    facts that must survive whatever the model wrote: files touched, open todos, and the user's
    latest request verbatim (when it was among the summarised messages)."""
    changed, read = files_touched(old)
    changed = _merge(_earlier_files(old, CHANGED_LABEL), changed)
    read = [p for p in _merge(_earlier_files(old, READ_LABEL), read) if p not in changed]
    facts: list[str] = []
    if changed:
        facts.append(CHANGED_LABEL + ", ".join(changed[-50:]))
    if read:
        facts.append(READ_LABEL + ", ".join(read[-50:]))
    open_todos = [t for t in todos or [] if t.get("status") != "done"]
    if open_todos:
        facts.append("Open todos:\n" + "\n".join(f"- [{t.get('status', 'pending')}] {t.get('content', '')}"
                                                 for t in open_todos))
    request = last_request(old) if include_request else ""
    if request:
        facts.append(REQUEST_LABEL + _clip(request, 4000))
    text = load_template("compact_summary.md").format(summary=summary,
                                                      facts="\n" + "\n\n".join(facts) if facts else "")
    return {"role": "user", "content": text.rstrip()}
