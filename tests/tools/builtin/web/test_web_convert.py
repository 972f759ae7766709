"""Turning a fetched body into text: HTML to Markdown, text as is, binaries refused, prompt sections."""

from __future__ import annotations

import pytest

from axon_cli.tools.builtin.web.body_text import NotText, select_sections, to_text


def test_html_becomes_markdown_without_scripts_or_styles():
    html = (b"<html><head><title>T</title><style>p{x:1}</style></head><body><h2>Sub</h2>"
            b"<p>See <a href='/x'>x</a></p><script>alert(1)</script></body></html>")
    text, kind = to_text(html, "text/html", "utf-8")
    assert kind == "html"
    assert text == "Title: T\n\n## Sub\n\nSee [x](/x)\n"


@pytest.mark.parametrize("ctype", ["text/plain", "text/markdown", "application/json", "application/ld+json"])
def test_text_kinds_pass_through(ctype):
    assert to_text(b'{"a": "<b>1</b>"}', ctype, None) == ('{"a": "<b>1</b>"}', "text")


@pytest.mark.parametrize("ctype,body", [("image/png", b"\x89PNG\r\n"), ("application/pdf", b"%PDF-1.7"),
                                        ("", b"\x00\x01\x02binary")])
def test_non_text_is_refused(ctype, body):
    with pytest.raises(NotText, match="^not text: "):
        to_text(body, ctype, None)


def test_no_content_type_is_sniffed():
    assert to_text(b"<!DOCTYPE html><h1>Hi</h1>", "", None)[1] == "html"
    assert to_text(b"plain words", "", None) == ("plain words", "text")


def test_prompt_keeps_the_sections_that_mention_it_in_page_order():
    filler = "lorem ipsum " * 300
    page = (f"# Intro\n{filler}\n## Install\npip install axon\n## Other\n{filler}\n"
            f"## Configure install paths\nset install prefix\n## More\n{filler}\n")
    text, kept, total = select_sections(page, "how to install", budget=2000)
    assert (kept, total) == (2, 5)
    assert text.index("## Install") < text.index("## Configure install paths")
    assert "lorem" not in text


def test_short_page_or_wordless_prompt_comes_back_whole():
    assert select_sections("# A\nx\n## B\ny\n", "B")[0] == "# A\nx\n## B\ny\n"
    long = "# A\n" + "x " * 20000 + "\n## B\ny\n"
    assert select_sections(long, "??")[0] == long
