"""axon's own notes to the model in one user turn, so that none of them becomes the turn's answer.

The loop sends the model notes of its own — a nudge, a reminder, "The call failed: do not answer
yet; …" after a failed text call, "continue where you stopped" — as user messages. A small model
sometimes answers with one of them word for word; taken as the final answer, axon's instruction
would be printed as the result. ``Notes`` keeps this turn's notes (the tool results inside a
result message are not notes: an answer may quote them) and says whether an answer only echoes one.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["Notes", "ECHOED", "ECHOED_AGAIN"]

ECHOED = ("Your last reply repeated axon's instruction instead of answering. Continue the task: make the next "
          "tool call, or give the user your final answer (what you did or found, from the tool results above).")
ECHOED_AGAIN = "the model repeated axon's instructions instead of answering; stopped"
MIN_ECHO = 12        # characters: shorter answers ("Done.") are too common to call an echo
_RESULT = re.compile(r'<tool_response name="[^"]*">.*?</tool_response>', re.S)
_TAG = re.compile(r"</?tool_(?:response|call)[^>]*>")


def _norm(text: str) -> str:
    return " ".join(_TAG.sub(" ", text).split()).lower().strip(" .")


class Notes:
    """The notes axon sent in one user turn."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.echoes = 0
        self.stopped = False
        self.reason = ""          # why the last answer was sent back, for a Notice event

    def clear(self) -> None:
        self.notes.clear()
        self.echoes = 0
        self.stopped = False
        self.reason = ""

    def sent_back(self, answer: str) -> str | None:
        """The message to send instead of taking ``answer`` when it echoes a note (once per turn;
        a second echo stops the run: ``stop_reason``), else None."""
        self.reason = ""
        if not self.echoed(answer):
            return None
        if self.echoes:
            self.stopped = True
            return None
        self.echoes += 1
        self.reason = "the model repeated axon's instruction as its answer; asked it to answer"
        return ECHOED

    def stop_reason(self) -> str | None:
        return ECHOED_AGAIN if self.stopped else None

    def add(self, message: dict[str, Any]) -> None:
        """A message the loop appended: a user-role message's text, without tool results, is a note."""
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, str):
            return
        note = _norm(_RESULT.sub(" ", content))
        if note:
            self.notes.append(note)

    def echoed(self, answer: str) -> bool:
        """Whether ``answer`` is nothing but (a part of) one of the notes."""
        said = _norm(answer)
        if len(said) < MIN_ECHO:
            return False
        return any(said in note or (note in said and len(note) * 2 >= len(said)) for note in self.notes)
