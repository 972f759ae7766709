"""The fetched body as text: HTML to Markdown (markdownify), text kinds as they are, others refused.

With a ``prompt``, a long page is cut to its sections (split at Markdown headings) that mention the
prompt's words most, in page order, within a budget; a short page is returned whole. Either way the
prompt is echoed as what to look for.
"""

from __future__ import annotations

import re

__all__ = ["to_text", "NotText", "select_sections", "SELECT_BUDGET"]

SELECT_BUDGET = 20_000            # chars of sections kept for a prompt
_HTML = {"text/html", "application/xhtml+xml"}
_TEXT_APPS = {"application/json", "application/xml", "application/javascript", "application/x-yaml",
              "application/yaml", "application/toml", "application/x-sh", "application/ld+json"}
_INVISIBLE = ["head", "script", "style", "noscript", "template", "iframe", "svg", "canvas"]
_HEADING = re.compile(r"^#{1,6} ", re.M)
_WORD = re.compile(r"[A-Za-z0-9_]{3,}")
_STOP = {"the", "and", "for", "with", "what", "how", "does", "this", "that", "from", "are", "about", "which",
         "page", "find", "tell", "show", "use", "into", "its", "when", "where", "there", "their"}


class NotText(Exception):
    """The body is not text (an image, a PDF, a binary)."""


def _is_text_type(ctype: str) -> bool:
    return ctype.startswith("text/") or ctype in _TEXT_APPS or ctype.endswith(("+json", "+xml"))


def _decode(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:
        return body.decode("utf-8", errors="replace")


def _looks_binary(body: bytes) -> bool:
    head = body[:4096]
    return b"\x00" in head or (bool(head) and head.decode("utf-8", errors="replace").count("\ufffd") > len(head) // 20)


def html_to_markdown(html: str) -> str:
    """The page's body as Markdown, its title first; scripts, styles and other invisible parts dropped."""
    from bs4 import BeautifulSoup  # imported on the first HTML page, not at start-up
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup.find_all(_INVISIBLE):
        tag.decompose()
    text = MarkdownConverter(heading_style="ATX").convert_soup(soup)
    text = re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
    return f"Title: {title}\n\n{text}" if title else text


def to_text(body: bytes, ctype: str, charset: str | None) -> tuple[str, str]:
    """The body as text and what it was (``html`` or ``text``); NotText for anything else."""
    sniffed_html = body[:1024].lstrip().lower().startswith((b"<!doctype html", b"<html"))
    if ctype in _HTML or (not ctype and sniffed_html):
        return html_to_markdown(_decode(body, charset)), "html"
    if _is_text_type(ctype) or (not ctype and not _looks_binary(body)):
        return _decode(body, charset), "text"
    raise NotText(f"not text: {ctype or 'binary content'} ({len(body)} bytes); web_fetch reads text and "
                  "HTML pages only")


def _sections(text: str) -> list[str]:
    starts = [m.start() for m in _HEADING.finditer(text)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    return [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)], strict=True) if text[a:b].strip()]


def select_sections(text: str, prompt: str, budget: int = SELECT_BUDGET) -> tuple[str, int, int]:
    """The sections of ``text`` most relevant to ``prompt`` (by how often its words occur), in page
    order, within ``budget`` chars: (text, sections kept, sections in all). A text within the
    budget, or a prompt without words, comes back whole."""
    sections = _sections(text)
    words = {w.lower() for w in _WORD.findall(prompt)} - _STOP
    if len(text) <= budget or not words or len(sections) < 2:
        return text, len(sections), len(sections)

    def score(section: str) -> int:
        low = section.lower()
        return sum(low.count(w) for w in words)

    ranked = sorted(range(len(sections)), key=lambda i: (-score(sections[i]), i))
    kept: list[int] = []
    used = 0
    for i in ranked:
        if score(sections[i]) == 0 or (used + len(sections[i]) > budget and kept):
            continue
        kept.append(i)
        used += len(sections[i])
    if not kept:
        return text, len(sections), len(sections)
    return "\n".join(sections[i].rstrip() + "\n" for i in sorted(kept)), len(kept), len(sections)
