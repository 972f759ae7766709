"""Values in an answer that no tool result of the turn shows.

Asked for the value of a setting in a config file, a 1.5B model ran a ``grep | awk`` that printed
only "=" signs and answered with a number the file does not hold. An answer to a question that
states a value — a number such as ``120`` or ``0.4.2`` (one digit alone is prose), or a quoted
string — is checked against what the turn's tool results (and the question itself) contain; for a
task that asks what a program prints, so is each line of a code block in the answer (the output it
quotes). When none of its values appears there, the model is asked once to answer from the results
or to look again. Which tasks are checked is the caller's (``phrases.asks_for_value``): counts,
sums and conversions are computed, not read, and explanations quote their own examples.
"""

from __future__ import annotations

import re

__all__ = ["Seen", "unseen_values", "MAX_SEEN"]

MAX_SEEN = 1 << 20          # characters of tool results kept per turn (the latest)
_BLOCK = re.compile(r"```[^\n]*\n(.*?)```", re.S)
_VALUE = re.compile(r"(?<![\w.-])(\d+(?:\.\d+)+|\d{2,})(?![\w-]|\.\d)|\"([^\"\n]{1,80})\"|'([^'\n]{1,80})'")


class Seen:
    """The text of one turn's tool results, bounded."""

    def __init__(self) -> None:
        self.text = ""

    def add(self, content: str) -> None:
        self.text = (self.text + "\n" + content)[-MAX_SEEN:]


def unseen_values(answer: str, question: str, seen: Seen, output: bool = False) -> list[str]:
    """The answer's values, when there are some and not one of them is in the results or the
    question; [] otherwise. ``output``: the lines of its code blocks count as values too."""
    values = [next(g for g in m.groups() if g is not None) for m in _VALUE.finditer(_BLOCK.sub(" ", answer))]
    if output:
        values += [line for block in _BLOCK.findall(answer) for line in block.splitlines()]
    values = [v.strip() for v in values if v.strip()]
    if not values:
        return []
    if any(v in seen.text or v in question for v in values):
        return []
    return values
