"""The words of ``reminders``: what the model reads, and the patterns that recognise a claim, a
step handed to the user, a question about the project and the paths a task names."""

from __future__ import annotations

import re

__all__ = ["GROUND", "GROUND_LIST", "CLAIMED", "HANDED_OVER", "CLAIM_CHANGE", "CLAIM_RUN", "TO_USER_COMMAND",
           "PROJECT_QUESTION", "QUESTION", "file_mentions"]

GROUND = ("Look before you answer: nothing in this project has been read yet in this turn, and the task "
          "names {path}. Your next step:\n{call}\nThen answer from what it shows.")
GROUND_LIST = ("Look before you answer: nothing in this project has been looked at yet in this turn. "
               "Your next step:\n{call}\nThen answer from what it shows.")
CLAIMED = ('Nothing has been changed or run yet: your reply says "{what}", but no tool call in this turn did '
           "that. Do it now: {hint}. (If it is not needed, say so plainly instead of claiming it.)")
HANDED_OVER = ("The user cannot call your tools or run commands for you: you have the tools. Take the step "
               "yourself now: {hint}. (If the task is already done, give the answer itself.)")

_CHANGE = (r"(?:created|changed|modified|updated|deleted|removed|added|fixed|wrote|written|saved|renamed|"
           r"replaced|edited|corrected|appended|inserted|implemented|refactored|moved)")
_I = r"\bI(?:'ve|\s+have|\s+just)?\s+(?:(?:now|just|successfully|also|already|then|first)\s+)*"
CLAIM_CHANGE = re.compile(
    rf"{_I}{_CHANGE}\b(?!\s+(?:nothing|anything|no\b))|\b(?:has|have)\s+(?:now\s+)?been\s+(?:successfully\s+)?{_CHANGE}\b"
    rf"|\b(?:is|are)\s+now\s+{_CHANGE}\b|\bsuccessfully\s+{_CHANGE}\b"
    r"|^\s*(?:Done[.!:,]?\s+)?(?:Created|Updated|Fixed|Deleted|Removed|Added|Wrote|Modified|Changed|Saved)"
    r"\s+[`'\"]?[\w./-]+[`'\"]?", re.I | re.M)
CLAIM_RUN = re.compile(
    rf"{_I}(?:ran|executed|tested)\b|\bI(?:'ve|\s+have)\s+(?:(?:now|just|successfully|also|already)\s+)*run\b"
    r"|\b(?:has|have)\s+been\s+(?:successfully\s+)?(?:run|executed)\b"
    r"|\b(?:all\s+)?(?:the\s+)?tests\s+(?:now\s+)?pass(?:ed)?\b", re.I)
TO_USER_COMMAND = re.compile(
    r"\b(?:use|run|execute|try|type|enter)\s+the\s+following\s+(?:commands?|code|script|call)\b"
    r"|\byou\s+(?:can|could|should|need\s+to|must)\s+(?:now\s+)?run\b", re.I)
QUESTION = re.compile(r"^(?:how|what|why|which|who|when|where|can|could|should|would|is|are|do|does|explain)\b"
                      r"|\?$", re.I)
PROJECT_QUESTION = re.compile(
    r"\b(?:this|my|our|current)\s+(?:project|repo|repository|codebase|code\s?base|directory|folder|workspace)\b"
    r"|\bthe\s+(?:repo|repository|codebase|code\s?base)\b"
    r"|\bfiles?\s+(?:are\s+)?(?:here|in\s+(?:here|this|the\s+current))\b", re.I)

_TOKEN = re.compile(r"`([^`\s]+)`|([\w./-]+)")
_KNOWN = {"Makefile", "Dockerfile", "Gemfile", "Rakefile", "Procfile", "Justfile", "Vagrantfile"}


def file_mentions(text: str) -> list[str]:
    """Words of ``text`` that look like paths: in backticks, with a slash or a dot inside, all capitals
    (VERSION, README) or a well-known file name; in order, without duplicates. Whether they exist is
    for the caller to check."""
    found: list[str] = []
    for m in _TOKEN.finditer(text):
        word = (m.group(1) or m.group(2)).rstrip(".,;:!?\"')").lstrip("(\"'").removeprefix("./")
        if not word or word in found:
            continue
        inner = word.rstrip("/")
        if m.group(1) or "/" in word or "." in inner.strip(".") or (inner.isupper() and len(inner) >= 3) \
                or inner in _KNOWN:
            found.append(word)
    return found
