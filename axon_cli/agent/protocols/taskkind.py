"""What kind of request the user's task is: one that asks for a change (a clause opening with
delete, create, fix …) or a question. Read by the auto protocol (a fenced call among prose runs only
for a change) and by the answer guidance, on the user's words (``UserTurn.text``: attached files
are not part of them)."""

from __future__ import annotations

import re

__all__ = ["CHANGE_TASK", "QUESTION", "is_change_task"]

CHANGE_TASK = re.compile(    # a clause of the task that asks for a change: "Delete x", "…; fix that value"
    r"(?:^|[.;:!,]\s+|\b(?:and|then)\s+)(?:please\s+)?(delete|remove|create|add|change|set|fix|write|rename|"
    r"replace|update|edit|append|insert|move|bump|implement|refactor)\b", re.I | re.M)
QUESTION = re.compile(r"^(?:how|what|why|which|who|when|where|can|could|should|would|is|are|do|does|explain)\b"
                      r"|\?$", re.I)


def is_change_task(words: str) -> bool:
    """The user's words ask for a change (a clause opening with delete, create, fix …), not a question."""
    asked = words.strip()
    return bool(CHANGE_TASK.search(asked)) and not QUESTION.search(asked)
