"""The rule table's shape: a rule masks one line, and applies only to lines holding one of its anchors.

A rule is data: an id, a regex (the part to hide is the named group ``s``, or the whole match),
the anchors (literal strings; all-lowercase ones match in any case, others exactly) and a sample
line with placeholders (``{h32}``: 32 hex digits, see ``tests/masking/test_masking_rules.py``; the longest
one is the secret) that the rule must mask. The anchors are what the one-pass prefilter looks for; a rule is tried only on the
lines where one of its anchors occurs, so an anchor can also be a gate (gitleaks' "keywords"). A
block rule (``pending`` set, ``rules_blocks.py``) masks the whole text where one of its anchors occurs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from axon_cli.machinery.masking.assign import REDACTED

__all__ = ["Rule", "token_rule", "keyword_rule", "legacy_rule", "UUID", "KEYWORD_SEP", "VALUE_END"]

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# Between an identifier that names the provider and its value: `=`, `:`, `:=`, `=>`, `,` (quotes and
# spaces around it); the value ends at a quote, space, `;`, `,`, a JSON escape or the line's end.
KEYWORD_SEP = r"[\w.-]{0,20}?[ \t'\"]{0,3}(?:=>|:{1,3}=|=|:|,)[ \t'\"`=]{0,5}"
VALUE_END = r"(?=[\s'\"`;,)]|\\[nrt]|$)"


@dataclass(frozen=True)
class Rule:
    id: str
    anchors: tuple[str, ...]
    sub: Callable[[str], str]
    sample: str = ""
    source: str = ""
    # A block rule (a secret over several lines): ``sub`` takes the whole text, the anchors are
    # marks found anywhere, and ``pending(text)`` is where a block that may not have ended begins.
    pending: Callable[[str], int | None] | None = None


def _replace_secret(m: re.Match[str]) -> str:
    if "s" not in m.re.groupindex or m.start("s") < 0:
        return REDACTED
    whole, base = m.group(0), m.start()
    return whole[:m.start("s") - base] + REDACTED + whole[m.end("s") - base:]


def _lazy_sub(pattern: str) -> Callable[[str], str]:
    """A line substitution whose regex is compiled on first use (most rules never meet a candidate
    line, and compiling the whole table costs more than axon's start-up may)."""
    compiled: list[re.Pattern[str]] = []

    def sub(line: str) -> str:
        if not compiled:
            compiled.append(re.compile(pattern))
        return compiled[0].sub(_replace_secret, line)

    return sub


def _anchors(anchors: str | Sequence[str]) -> tuple[str, ...]:
    return tuple(anchors.split("|")) if isinstance(anchors, str) else tuple(anchors)


def token_rule(id: str, pattern: str, anchors: str | Sequence[str], sample: str, source: str = "gitleaks") -> Rule:
    """A self-identifying token (``npm_…``, ``SG.….…``): the match, or its group ``s``, is hidden."""
    return Rule(id, _anchors(anchors), _lazy_sub(pattern), sample, source)


def keyword_rule(id: str, keywords: str, value: str, sample: str, source: str = "gitleaks") -> Rule:
    """A value of a known shape assigned to a name containing a provider keyword
    (``HEROKU_API = <uuid>``, ``"mailgun": "key-…"``); matching is case-insensitive."""
    names = "|".join(re.escape(k) for k in keywords.split("|"))
    pattern = r"(?i)(?:" + names + r")" + KEYWORD_SEP + r"(?P<s>(?:" + value + r"))" + VALUE_END
    anchors = tuple(k.lower() for k in keywords.split("|"))
    return Rule(id, anchors, _lazy_sub(pattern), sample, source)


def legacy_rule(id: str, anchors: Sequence[str], sub: Callable[[str], str], sample: str) -> Rule:
    return Rule(id, tuple(anchors), sub, sample, "axon")
