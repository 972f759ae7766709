"""Finding ``old_string`` in a file: exact first, then forgiving matches that must still be unique.

The forgiving layers, tried in order and cumulative, forgive only: line endings, trailing
whitespace, tabs-vs-spaces indentation, curly-vs-straight quotes, spacing around punctuation
inside a line (``workers=64`` for ``workers = 64``; the indentation is never ignored). Each normalizes both texts,
keeps a map from normalized to original offsets, and accepts only matches whose both ends fall on
original character boundaries. :func:`restyle` then writes the replacement in the file's style.
"""

from __future__ import annotations

import difflib
import re
from array import array
from dataclasses import dataclass

from axon_cli.tools.spec import ToolError

__all__ = ["Found", "find_spans", "restyle", "closest_region", "LAYERS"]

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
                         "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"'})
LAYERS = ("line endings", "trailing whitespace", "tabs-vs-spaces indentation", "curly-vs-straight quotes",
          "spacing around punctuation")
_TAB_WIDTHS = (4, 8, 2)


@dataclass
class Found:
    spans: list[tuple[int, int]]     # [start, end) in the original text, ascending, not overlapping
    layer: str = ""                  # "" for an exact match, else the last forgiving layer used
    tab: int = 0                     # the tab width that made the indentation layer match


def _occurrences(hay: str, needle: str, overlapping: bool) -> list[int]:
    found, i = [], hay.find(needle)
    while i != -1:
        found.append(i)
        i = hay.find(needle, i + (1 if overlapping else max(len(needle), 1)))
    return found


def _respace(s: str, start: int, end: int, parts: list[str], index: array[int]) -> None:
    """``s[start:end]`` (a line after its indentation) with the spacing made canonical: a run of
    spaces next to punctuation is dropped (``workers = 64`` → ``workers=64``), one between two
    words becomes a single space."""
    i = start
    while i < end:
        if s[i] not in " \t":
            parts.append(s[i])
            index.append(i)
            i += 1
            continue
        j = i
        while j < end and s[j] in " \t":
            j += 1
        if i > start and j < end and _wordish(s[i - 1]) and _wordish(s[j]):
            parts.append(" ")
            index.append(i)
        i = j


def _wordish(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _normalize(s: str, level: int, tab: int) -> tuple[str, array[int]]:
    """``s`` normalized for forgiving ``level`` (1..5), with the original offset of each char
    (one extra entry for the end)."""
    parts: list[str] = []
    index: array[int] = array("q")
    pos = 0
    lines = s.split("\n")
    for n, line in enumerate(lines):
        start, end = pos, pos + len(line)
        last = n == len(lines) - 1
        if level >= 1 and not last and line.endswith("\r"):
            end -= 1
        if level >= 2:
            while end > start and s[end - 1] in " \t\r":
                end -= 1
        body = start
        if level >= 3:
            col = 0
            while body < end and s[body] in " \t":
                col = col + tab - col % tab if s[body] == "\t" else col + 1
                body += 1
            parts.append(" " * col)
            index.extend([start] * col)
        if level >= 5:
            _respace(s, body, end, parts, index)
        else:
            parts.append(s[body:end])
            index.extend(range(body, end))
        if not last:
            parts.append("\n")
            index.append(pos + len(line))
        pos += len(line) + 1
    index.append(len(s))
    text = "".join(parts)
    return (text.translate(_QUOTES) if level >= 4 else text), index


def _aligned_spans(text: str, old: str, level: int, tab: int, replace_all: bool) -> list[tuple[int, int]]:
    norm, index = _normalize(text, level, tab)
    needle, _ = _normalize(old, level, tab)
    if not needle.strip():
        return []
    last = old.rsplit("\n", 1)[-1]
    trimmed = level >= 2 and last != last.rstrip(" \t\r")   # its end was trailing whitespace
    spans = []
    for s in _occurrences(norm, needle, overlapping=not replace_all):
        e = s + len(needle)
        if trimmed and e < len(norm) and norm[e] != "\n":
            continue            # "value = 1 " must not match the start of "value = 10"
        if s > 0 and index[s - 1] == index[s]:
            continue            # starts inside an expanded tab
        if index[e - 1] == index[e]:
            continue
        spans.append((index[s], index[e - 1] + 1))
    return spans


def find_spans(text: str, old: str, replace_all: bool) -> Found:
    """Where to replace; raises ToolError when the place is not uniquely identified."""
    exact = _occurrences(text, old, overlapping=not replace_all)
    if len(exact) == 1 or (exact and replace_all):
        return Found([(s, s + len(old)) for s in exact])
    if exact:
        raise ToolError(f"old_string appears {len(exact)} times: add surrounding context to make it "
                        "unique, or set replace_all to change every occurrence")
    for level, layer in enumerate(LAYERS, start=1):
        by_tab = {tab: _aligned_spans(text, old, level, tab, replace_all)
                  for tab in (_TAB_WIDTHS if level >= 3 else (4,))}
        matched = {tab: spans for tab, spans in by_tab.items() if spans}
        if not matched:
            continue
        places = {span for spans in matched.values() for span in spans}   # over every tab width
        tab, spans = next(iter(matched.items()))
        if len(places) == 1 or (replace_all and all(set(s) == places for s in matched.values())):
            return Found(spans, layer, tab)
        raise ToolError(f"old_string was not found exactly; ignoring {layer} it matches "
                        f"{len(places)} places: add surrounding context to make it unique")
    hint = closest_region(text, old)
    raise ToolError("old_string not found in the file (it must match exactly, including "
                    "indentation)." + (f" The closest region is:\n{hint}" if hint else ""))


def _leading(line: str) -> tuple[str, str]:
    body = line.lstrip(" \t")
    return line[: len(line) - len(body)], body


def _retab(text: str, tab: int, to_tabs: bool, skip_first: bool) -> str:
    out = []
    for n, line in enumerate(text.split("\n")):
        lead, body = _leading(line)
        if lead and not (skip_first and n == 0):
            col = 0
            for ch in lead:
                col = col + tab - col % tab if ch == "\t" else col + 1
            lead = "\t" * (col // tab) + " " * (col % tab) if to_tabs else " " * col
        out.append(lead + body)
    return "\n".join(out)


def _curly(text: str, straight: str, opening: str, closing: str) -> str:
    out = []
    for i, ch in enumerate(text):
        if ch == straight:
            prev = text[i - 1] if i else " "
            ch = opening if prev.isspace() or prev in "([{<-—" else closing
        out.append(ch)
    return "".join(out)


def restyle(new: str, old: str, region: str, found: Found, at_line_start: bool) -> str:
    """The replacement written in the file's own style (indentation, quotes) for a forgiving match."""
    level = LAYERS.index(found.layer) + 1 if found.layer else 0
    if level >= 3:
        lines = region.split("\n")
        file_tabs = any(line.startswith("\t") for line in lines)
        old_tabs = any(line.startswith("\t") for line in old.split("\n"))
        if file_tabs != old_tabs:
            new = _retab(new, found.tab, to_tabs=file_tabs, skip_first=not at_line_start)
    if level >= 5:
        new = _spaced_like(new, old, region)
    if level >= 4:
        if any(q in region for q in "\u201c\u201d") and '"' in old:
            new = _curly(new, '"', "\u201c", "\u201d")
        if any(q in region for q in "\u2018\u2019") and "'" in old:
            new = _curly(new, "'", "\u2018", "\u2019")
    return new


def _spaced_like(new: str, old: str, region: str) -> str:
    """``new`` with the file's spacing around each punctuation mark that ``old`` wrote tight (no
    space on either side) and the file spaces the same way every time (``=`` → `` = ``)."""
    for mark in {ch for ch in old if not (_wordish(ch) or ch.isspace())}:
        if re.search(rf"[ \t]{re.escape(mark)}|{re.escape(mark)}[ \t]", old):
            continue
        styles = set(re.findall(rf"([ \t]*){re.escape(mark)}([ \t]*)", region))
        if len(styles) == 1:
            before, after = styles.pop()
            spaced = (before + mark + after).replace("\\", "\\\\")   # a literal replacement
            new = re.sub(rf"(?<=\S){re.escape(mark)}(?=\S)", spaced, new)
    return new


def closest_region(text: str, old: str, max_lines: int = 30, scan_limit: int = 50_000) -> str:
    """The file lines most like ``old_string`` (numbered), or "" when nothing is close."""
    lines = text.split("\n")
    wanted = [w.strip() for w in old.split("\n")]
    anchor_at = max(range(len(wanted)), key=lambda i: len(wanted[i]))
    anchor = wanted[anchor_at]
    if not anchor:
        return ""
    best, best_score = -1, 0.0
    for n, line in enumerate(lines[:scan_limit]):
        m = difflib.SequenceMatcher(None, line.strip(), anchor, autojunk=False)
        if m.real_quick_ratio() <= best_score or m.quick_ratio() <= best_score:
            continue
        score = m.ratio()
        if score > best_score:
            best, best_score = n, score
    if best < 0 or best_score < 0.5:
        return ""
    first = max(0, best - anchor_at - 1)
    last = min(len(lines), first + min(len(wanted) + 2, max_lines))
    return "\n".join(f"{n + 1:>6}\t{lines[n].rstrip(chr(13))}" for n in range(first, last))
