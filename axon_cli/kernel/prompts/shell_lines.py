"""The ``!`cmd` `` spans of a command template: shell commands run before the prompt is sent.

Claude Code's custom commands write ``- Current git status: !`git status` `` and get the output in
place of the span. Both the command loader (which runs them) and the trust review (which counts a
file with such a span as one that runs commands) find them with ``SHELL_SPAN``.
"""

from __future__ import annotations

import re

__all__ = ["SHELL_SPAN", "has_shell_span"]

SHELL_SPAN = re.compile(r"(?<![\w`])!`([^`\n]+)`")


def has_shell_span(text: str) -> bool:
    return SHELL_SPAN.search(text) is not None
