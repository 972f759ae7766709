"""The phrases the answer checks (``reminders``) read: in the task (a how-to question, a request
for a value or for a program's output, thanks), and in the answer (a claim of work, a command
handed to the user, "no change is needed", a bare "task complete"). Generic English only: no
pattern knows about any particular task, file or value.
"""

from __future__ import annotations

import re

from axon_cli.agent.guidance.lazy_pattern import LazyPattern

__all__ = ["CLAIM_MINE", "CLAIM_DONE", "RUN_WORDS", "TO_USER_COMMAND", "PROJECT_QUESTION", "SAYS_NO_CHANGE",
           "NO_CHANGE_NEEDED", "SAYS_MISSING", "BARE_DONE", "HOW_TO", "NOT_A_REQUEST", "REPORTS_OUTPUT", "GENERAL_NAME", "CODE_CHANGE_VERBS",
           "asks_back", "asks_for_value"]

_CHANGE = (r"(?:created|changed|modified|updated|deleted|removed|added|fixed|wrote|written|saved|renamed|"
           r"replaced|edited|corrected|appended|inserted|implemented|refactored|moved)")
_I = r"\bI(?:'ve|\s+have|\s+just)?\s+(?:(?:now|just|successfully|also|already|then|first)\s+)*"
CLAIM_MINE = LazyPattern(      # "I created …": a claim whatever the task
    rf"{_I}{_CHANGE}\b(?!\s+(?:nothing|anything|no\b))"
    rf"|{_I}(?:ran|executed|tested)\b|\bI(?:'ve|\s+have)\s+(?:(?:now|just|successfully|also|already)\s+)*run\b",
    re.I)
CLAIM_DONE = LazyPattern(      # "… has been added", "Created x": a claim when the task asked for work
    rf"\b(?:has|have)\s+(?:now\s+)?been\s+(?:successfully\s+)?(?:{_CHANGE}|run|executed)\b"
    rf"|\b(?:is|are)\s+now\b|\b(?:is|are)\s+(?:now\s+)?gone\b|\bsuccessfully\s+{_CHANGE}\b"
    r"|\b(?:all\s+)?(?:the\s+)?tests\s+(?:now\s+)?pass(?:ed)?\b"
    r"|^\s*(?:Done[.!:,]?\s+)?(?:Created|Updated|Fixed|Deleted|Removed|Added|Wrote|Modified|Changed|Saved|Renamed|Moved|"
    r"Replaced|Set|Bumped|Dropped)"
    r"\s+[`'\"]?[\w./-]+[`'\"]?", re.I | re.M)
RUN_WORDS = LazyPattern(r"\b(?:ran|run|executed|tested|tests?\s+(?:now\s+)?pass(?:ed)?)\b", re.I)
TO_USER_COMMAND = LazyPattern(
    r"\b(?:use|run|execute|try|type|enter)\s+the\s+following\s+(?:commands?|code|script|call)\b"
    r"|\byou\s+(?:can|could|should|need\s+to|must)\s+(?:now\s+)?run\b", re.I)
PROJECT_QUESTION = LazyPattern(
    r"\b(?:this|my|our|current)\s+(?:project|repo|repository|codebase|code\s?base|directory|folder|workspace)\b"
    r"|\bthe\s+(?:repo|repository|codebase|code\s?base)\b"
    r"|\bfiles?\s+(?:are\s+)?(?:here|in\s+(?:here|this|the\s+current))\b", re.I)

NO_CHANGE_NEEDED = LazyPattern(   # the answer says plainly why nothing was changed
    r"\b(?:no\s+(?:change|edit)s?\s+(?:is\s+|are\s+|was\s+|were\s+)?(?:needed|necessary|required)"
    r"|(?:is|are|was|were)\s+already\b|nothing\s+(?:to|needed|needs)\b|(?:left|kept)\s+(?:it|them)\s+"
    r"(?:in\s+place|as\s+(?:it\s+)?(?:is|was))|(?:does\s+not|doesn't|did\s+not|didn't)\s+(?:contain|have|include|"
    r"exist)|\bhas\s+no\b|\bthere\s+(?:is|are)\s+no\b|no\s+such\b|no\s+longer\s+(?:needed|there))", re.I)
SAYS_MISSING = LazyPattern(r"\b(?:(?:does\s+not|doesn't|did\s+not|didn't)\s+exist|no\s+such|not\s+found|"
                          r"there\s+(?:is|are)\s+no)\b", re.I)
SAYS_NO_CHANGE = LazyPattern(     # ... or that it changed nothing
    r"\b(?:(?:changed|modified|edited)\s+nothing|(?:did|have|has)\s+not\s+(?:been\s+)?(?:change|modif|edit)\w*"
    r"|no\s+(?:change|edit)s?\s+(?:is\s+|are\s+|was\s+|were\s+)?made)|" + NO_CHANGE_NEEDED.pattern, re.I)
BARE_DONE = LazyPattern(r"^\W*(?:the\s+)?task\s+(?:(?:is|has\s+been)\s+)?(?:now\s+|already\s+|successfully\s+)*"
                       r"(?:complete|completed|done|finished)\W*$", re.I)

HOW_TO = LazyPattern(          # the user asks how, or for the command itself: showing it is the answer
    r"^\W*(?:how|explain|describe)\b|\b(?:show|tell|teach|give)\s+me\s+(?:how|the\s+commands?|a\s+commands?|"
    r"an?\s+example)\b|\bwhat(?:'s|\s+is|\s+are)\s+the\s+commands?\b|\bhow\s+(?:do|can|would|should)\s+"
    r"(?:i|we|one)\b", re.I)
NOT_A_REQUEST = LazyPattern(   # thanks and acknowledgements name files without asking anything
    r"^\W*(?:thanks|thank\s+you|thx|great|perfect|nice|awesome|cool|ok|okay|got\s+it|looks\s+good)\b", re.I)
GENERAL_NAME = LazyPattern(r"\b(?:an?|any|every|each|in\s+general)\s+`?(\S+?)`?(?=[\s.,;:!?]|$)", re.I)
# the task asks to report what a program prints or returns
REPORTS_OUTPUT = LazyPattern(
    r"\b(?:tell|show|report|give|paste|say)\s+(?:me\s+|us\s+)?(?:what|the|its|which|how)\b"
    r"|\bwhat\s+(?:it|they|this|that)\s+(?:prints?|printed|outputs?|says|said|returns?|returned|shows?)\b"
    r"|\b(?:report|show|print)\s+(?:the|its)\s+(?:output|number|result|value)\b", re.I)
# a question whose answer is computed from what was read, not read off it
COMPUTED = LazyPattern(r"\bhow\s+(?:many|much|often|long)\b|\bcount\b|\bnumber\s+of\b|\b(?:sum|total|average|"
                      r"mean|median|difference|ratio|percentage|combined)\b|\bin\s+(?:milli|micro)?seconds\b|"
                      r"\bin\s+(?:minutes|hours|days|bytes|kb|mb|gb|kib|mib)\b|\bconvert", re.I)
# questions about what something does or why: the answer explains, its examples are its own
EXPLAINS = LazyPattern(r"^\W*(?:why|how|explain|describe|summari[sz]e)\b|\bwhat\s+does\b.*\bdo\b|\bwhat\s+is\s+"
                      r"(?:the\s+)?(?:purpose|point|role)\b", re.I | re.S)
VALUE_QUESTION = LazyPattern(r"^(?:what|which|who|where|when|is|are|does|do)\b|\?\s*$", re.I)
# the verbs of a change to code that cannot be answered in text alone (not write/create/add: "write
# a regex", "create an example", "add up 2 and 3" are answered in the reply)
CODE_CHANGE_VERBS = frozenset({"fix", "implement", "refactor", "update", "change", "set", "bump", "replace",
                               "edit", "delete", "remove", "move", "insert", "append"})


def asks_back(answer: str) -> bool:
    """The answer ends by asking the user something (a clarifying question, an offer): one of its
    last two sentences is a question."""
    sentences = re.split(r"(?<=[.!?])\s+", answer.strip())
    return any(s.endswith("?") for s in sentences[-2:])


def asks_for_value(task: str) -> bool:
    """The task asks for a value or a program's output (not a count or a sum, not an explanation)."""
    if COMPUTED.search(task):
        return False
    if REPORTS_OUTPUT.search(task):
        return True
    return bool(VALUE_QUESTION.search(task.strip())) and not EXPLAINS.search(task)
