"""Every relative link in the project's Markdown leads somewhere, and README stays a newcomer's page.

A link's file must exist (relative to the file that links it) and its ``#anchor`` must be made by a
heading of the target file under GitHub's rules: the heading's text lowercased, punctuation dropped,
each space turned into ``-``, a repeated heading suffixed ``-1``, ``-2``, …. Links inside code (fenced
blocks, inline code spans) are not links. README links every page of ``docs/``, fits in 300 lines and
keeps the two commands the project's brief requires verbatim.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CHECKED = [README, *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench" / "README.md",
           ROOT / "bench" / "localmodel" / "README.md"]
INSTALL = "python3 -m venv .venv && . .venv/bin/activate && pip install . && axon --help"
TESTS = "python3 -m venv .venv && . .venv/bin/activate && pip install '.[test]' && python -m pytest -q -n 3"
MAX_README_LINES = 300

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_INLINE_LINK = re.compile(r"!?\[((?:[^\]\\]|\\.)*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")


def _outside_code(text: str) -> Iterator[tuple[str, bool]]:
    """Each line with whether it lies outside fenced code blocks (CommonMark: a fence is 3+ backticks
    or tildes; a backtick fence's info string holds no backtick; it closes with a run as long or longer)."""
    fence = ""
    for line in text.splitlines():
        m = _FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
                fence = ""
            yield line, False
        elif m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            fence = m.group(1)
            yield line, False
        else:
            yield line, True


def _prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks, with inline code spans blanked."""
    return [_CODE_SPAN.sub(lambda c: " " * len(c.group(0)), line) for line, prose in _outside_code(text) if prose]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text: inline code and link markup reduced to their text,
    lowercased, everything but letters, digits, ``_``, ``-`` and spaces dropped, spaces to ``-``."""
    text = _CODE_SPAN.sub(lambda c: c.group(2), heading)
    text = _INLINE_LINK.sub(lambda m: m.group(1), text)
    kept = "".join(ch for ch in text.lower()
                   if ch.isalnum() or ch in "_- " or unicodedata.category(ch).startswith("M"))
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors the headings of the Markdown file ``path`` make."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    for line, prose in _outside_code(path.read_text(encoding="utf-8")):
        if not prose:
            continue
        h = _HEADING.match(line)
        if not h:
            continue
        base = slug(h.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(path: Path) -> list[str]:
    """The targets of the inline and reference links in ``path`` (code excluded)."""
    lines = _prose_lines(path.read_text(encoding="utf-8"))
    found = [m.group(2) for m in _INLINE_LINK.finditer("\n".join(lines))]      # a link's text may wrap
    return found + [ref.group(1) for ref in map(_REFERENCE.match, lines) if ref]


def broken_links(path: Path) -> list[str]:
    """One line per relative link of ``path`` whose file or anchor does not exist."""
    problems: list[str] = []
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    for target in links(path):
        if not target or _SCHEME.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            problems.append(f"{shown}: {target}: {file_part} does not exist")
        elif anchor and dest.suffix != ".md":
            problems.append(f"{shown}: {target}: an anchor into a file that is not Markdown")
        elif anchor and anchor not in anchors(dest):
            problems.append(f"{shown}: {target}: no heading in {dest.name} makes #{anchor}")
    return problems


@pytest.mark.parametrize("heading,expected", [
    ("Leaving the sandbox", "leaving-the-sandbox"),
    ("`axon run`", "axon-run"),
    ("What is and is not contained", "what-is-and-is-not-contained"),
    ("llama.cpp", "llamacpp"),
    ("Permissions, modes and trust", "permissions-modes-and-trust"),
    ("Hooks — and `[[hooks.EVENT]]`", "hooks--and-hooksevent"),
    ("snake_case and [a link](x.md)", "snake_case-and-a-link"),
])
def test_slug_follows_githubs_rules(heading: str, expected: str) -> None:
    assert slug(heading) == expected


def test_repeated_headings_and_what_is_code(tmp_path: Path) -> None:
    doc = tmp_path / "a.md"
    doc.write_text("# Notes\n\n```` ```json ```` inline, not a fence\n\n## Notes\n\n```sh\n# not a heading\n```\n\n"
                   "## Undo\n", encoding="utf-8")
    assert anchors(doc) == {"notes", "notes-1", "undo"}


def test_a_missing_file_or_anchor_is_caught_and_code_is_not_a_link(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "b.md").write_text("# Sandbox\n\n## Undo\n", encoding="utf-8")
    readme = tmp_path / "README.md"
    readme.write_text("# Top\n\n[ok](docs/b.md#undo) [own](#top) [web](https://example.com/#x) [a\nwrapped](#gone)\n"
                      "[gone](docs/c.md) [bad anchor](docs/b.md#trust) [bad own](#nowhere)\n"
                      "`[in code](#nowhere)`\n\n```md\n[in a block](missing.md)\n```\n", encoding="utf-8")
    assert broken_links(readme) == [
        "README.md: #gone: no heading in README.md makes #gone",
        "README.md: docs/c.md: docs/c.md does not exist",
        "README.md: docs/b.md#trust: no heading in b.md makes #trust",
        "README.md: #nowhere: no heading in README.md makes #nowhere",
    ]


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(path: Path) -> None:
    assert path.is_file(), path
    assert broken_links(path) == []


def test_readme_links_every_doc() -> None:
    docs = sorted((ROOT / "docs").glob("*.md"))
    assert docs, "docs/ holds no pages"
    linked = {(README.parent / t.partition("#")[0]).resolve() for t in links(README) if not _SCHEME.match(t)}
    assert [d.name for d in docs if d.resolve() not in linked] == []


def test_readme_fits_a_newcomer_and_keeps_the_required_commands() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES
    assert INSTALL in lines and TESTS in lines
