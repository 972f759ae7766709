"""Keyword ranking of tools for ``tool_search``: tokens, light stemming, prefix matches, idf weights.

A tool's name counts more than its description. Names are split on ``__``, ``_``, ``-``, ``.``
and camelCase, so ``github__createIssue`` yields ``github create issue``. Words are lowercased and
stemmed (``memories`` → ``memory``, ``saving`` → ``sav``); a query word that is a prefix of a tool
word (or the reverse, both at least 3 letters) is a partial match. Each query word is weighted by
its inverse document frequency over the candidate tools, so rare words decide.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from axon_cli.tools.spec import ToolSpec

__all__ = ["tokenize", "stem", "rank_tools", "Ranked", "NAME_WEIGHT", "DESCRIPTION_WEIGHT"]

NAME_WEIGHT = 3.0
DESCRIPTION_WEIGHT = 1.0
PARTIAL = 0.6                  # share of a full match that a prefix match earns
EXACT_NAME_BONUS = 10.0        # the query names the tool exactly
MIN_PREFIX = 3
STOPWORDS = frozenset({
    "a", "an", "the", "to", "for", "of", "in", "on", "at", "by", "and", "or", "with", "my", "me", "i", "it",
    "is", "be", "are", "was", "this", "that", "these", "those", "from", "into", "some", "any", "all", "use",
    "using", "used", "want", "need", "can", "could", "would", "should", "how", "do", "does", "what",
    "which", "when", "where", "tool", "tools", "function", "please", "let", "lets",
})
KEEP = frozenset({"string", "thing", "something", "nothing", "everything", "bring", "during", "speed"})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[A-Za-z0-9]+")


def stem(word: str) -> str:
    """A light English stemmer: plural and -ing/-ed endings, never below three letters."""
    w = word
    if w in KEEP:
        return w
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("sses", "shes", "ches", "xes", "zes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and len(w) - len(suffix) >= MIN_PREFIX:
            base = w[: -len(suffix)]
            if len(base) > MIN_PREFIX and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]          # running → run, stopped → stop
            return base
    return w


def tokenize(text: str) -> list[str]:
    """Lowercased, stemmed words of ``text`` (camelCase and snake_case split), stopwords dropped."""
    out: list[str] = []
    for raw in _WORD.findall(text):
        for part in _CAMEL.split(raw):
            word = part.lower()
            if word and word not in STOPWORDS:
                out.append(stem(word))
    return out


@dataclass
class Ranked:
    spec: ToolSpec[Any]
    score: float


def _match(term: str, words: set[str]) -> float:
    """1.0 if ``term`` is one of ``words``, PARTIAL if it is a prefix of one (or one of it), else 0."""
    if term in words:
        return 1.0
    for word in words:
        short, long_ = (term, word) if len(term) <= len(word) else (word, term)
        if len(short) >= MIN_PREFIX and long_.startswith(short):
            return PARTIAL
    return 0.0


def rank_tools(query: str, specs: Sequence[ToolSpec[Any]]) -> list[Ranked]:
    """Every spec with a positive score for ``query``, best first (ties keep registry order)."""
    terms = list(dict.fromkeys(tokenize(query)))
    wanted = {w.lower() for w in re.findall(r"[A-Za-z0-9_.\-]+", query)}
    docs = [(set(tokenize(s.name)), set(tokenize(f"{s.description} {s.short_description}"))) for s in specs]
    n = len(specs)
    ranked: list[Ranked] = []
    for spec, (name_words, desc_words) in zip(specs, docs, strict=True):
        score = EXACT_NAME_BONUS if spec.name.lower() in wanted else 0.0
        for term in terms:
            df = sum(1 for nw, dw in docs if _match(term, nw | dw) > 0)
            if df == 0:
                continue
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            best = max(NAME_WEIGHT * _match(term, name_words), DESCRIPTION_WEIGHT * _match(term, desc_words))
            score += best * idf
        if score > 0:
            ranked.append(Ranked(spec, score))
    ranked.sort(key=lambda r: -r.score)
    return ranked
