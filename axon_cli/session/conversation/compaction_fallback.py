"""Where the verbatim tail of a compacted history starts, and the fallback when no summary comes.

Without a summary (the model returned nothing or failed, or summaries are pausing after a failure)
the history would grow without bound: a small local model reading twelve large files overflows its
context within a few requests. ``drop_oldest`` then removes the oldest messages — whole turns, a
tool call always with its results — until what is left fits, and puts one note in their place. The
note is a summary message without a model summary: it says what was dropped and keeps the facts
that must survive (files changed and read, open todos, the user's latest request verbatim).
"""

from __future__ import annotations

from typing import Any

from axon_cli.session.conversation.compaction_text import (
    approx_tokens,
    last_request,
    message_chars,
    summary_message,
)

__all__ = ["split_point", "drop_oldest", "DROPPED_NOTE"]

DROPPED_NOTE = ("axon could not summarise the older conversation, so its oldest {n} messages were dropped "
                "to fit the context window. Read files again if you need their content.")


def split_point(messages: list[dict[str, Any]], keep_tokens: int) -> int:
    """The index where the verbatim tail starts: as much recent history as fits in ``keep_tokens``
    (at least the last exchange), starting at a message that is not a tool result — at a user
    message (a turn's start) when one fits."""
    start = 1 if messages and messages[0].get("role") == "system" else 0
    fitting: list[int] = []
    chars = 0
    for i in range(len(messages) - 1, start, -1):
        chars += message_chars(messages[i])
        if messages[i].get("role") == "tool":
            continue
        if chars // 4 > keep_tokens and fitting:
            break
        fitting.append(i)
    if not fitting:
        return len(messages)
    users = [i for i in fitting if messages[i].get("role") == "user"]
    return min(users) if users else min(fitting)


def drop_oldest(messages: list[dict[str, Any]], goal_tokens: int,
                todos: list[dict[str, Any]] | None) -> tuple[list[dict[str, Any]], int]:
    """The history without its oldest messages, so that it fits ``goal_tokens`` (estimated) where it
    can, with a note in their place; and how many were dropped (0: nothing could be)."""
    head = 1 if messages and messages[0].get("role") == "system" else 0
    budget = goal_tokens
    for _ in range(4):   # the note takes room too: shrink the kept tail until the whole fits
        cut = split_point(messages, max(0, budget - approx_tokens(messages[:head])))
        old = messages[head:cut]
        if not old or cut >= len(messages):   # the latest exchange is never dropped
            return messages, 0
        note = summary_message(DROPPED_NOTE.format(n=len(old)), old, todos,
                               include_request=not last_request(messages[cut:]))
        out = [*messages[:head], note, *messages[cut:]]
        if approx_tokens(out) <= goal_tokens or budget <= 0:
            return out, len(old)
        budget -= approx_tokens(out) - goal_tokens
    return out, len(old)
