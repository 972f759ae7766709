"""The ``web_fetch`` spec: input model, handler, and the text the model reads."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from axon_cli.tools.spec import ToolContext, ToolError, ToolOutput, ToolSpec

__all__ = ["TOOLS", "WebFetchInput", "web_fetch", "NAMED_HOSTS", "DEFAULT_TIMEOUT"]

NAMED_HOSTS = "web_fetch.named_hosts"   # ctx.extra: () -> hosts an allow rule names (private addresses OK)
DEFAULT_TIMEOUT = 30.0


class WebFetchInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(description="The http(s) URL to fetch")
    prompt: str | None = Field(None, description="What to look for; a long page is cut to the sections "
                                                 "mentioning its words most")
    timeout: float = Field(DEFAULT_TIMEOUT, ge=0.1, le=120, description="Seconds to wait for the server")


def _named(ctx: ToolContext) -> Callable[[], Iterable[str]]:
    hosts = ctx.extra.get(NAMED_HOSTS)
    return hosts if callable(hosts) else (lambda: ())


def web_fetch(inp: WebFetchInput, ctx: ToolContext) -> ToolOutput:
    from axon_cli.tools.builtin.web.body_text import NotText, select_sections, to_text
    from axon_cli.tools.builtin.web.fetch import FetchError, fetch

    try:
        got = fetch(inp.url, inp.timeout, _named(ctx), ctx.cancel.is_set)
    except FetchError as e:
        raise ToolError(str(e)) from None
    if got.redirected_to is not None:
        return ToolOutput(f"{got.url} redirected (HTTP {got.status}) to another host: {got.redirected_to}\n"
                          "Not followed: call web_fetch with that URL to fetch it (its host is checked and "
                          "permitted on its own).", summary="redirected to another host")
    try:
        text, kind = to_text(got.body, got.content_type, got.charset)
    except NotText as e:
        raise ToolError(f"{e} at {got.url}") from None
    shown = f"{got.content_type or 'no content type'}" + (" → Markdown" if kind == "html" else "")
    head = [f"Fetched {got.url} (HTTP {got.status}, {shown}, {len(got.body)} bytes)"]
    if inp.prompt and inp.prompt.strip():
        text, kept, total = select_sections(text, inp.prompt)
        part = "" if kept == total else f" — the {kept} of {total} sections that mention its words most, in page order"
        head.append(f"Looking for: {inp.prompt.strip()}{part}")
    if not text.strip():
        text = "(the page has no text)"
    return ToolOutput("\n".join(head) + "\n\n" + text, summary=f"{len(text)} chars from {got.url}")


def _summary(inp: WebFetchInput) -> str:
    return inp.url[:200]


TOOLS: list[ToolSpec[Any]] = [
    ToolSpec(
        name="web_fetch",
        description="Fetch a web page (http/https) and read it as text: HTML comes back as Markdown; plain "
                    "text, Markdown and JSON as they are; images, PDFs and binaries are refused. Redirects "
                    "on the same host are followed; one to another host is returned for you to fetch. "
                    "With `prompt` (what you look for), a long page is cut to its sections mentioning the "
                    "prompt's words most; no other model reads the page. Asks the user unless a rule "
                    "allows the domain; private and loopback addresses are refused.",
        short_description="fetch a web page as Markdown/text (asks unless the domain is allowed)",
        input_model=WebFetchInput,
        handler=web_fetch,
        category="other",
        is_read_only=lambda _i: False,        # it reaches the network: read-only mode denies it
        is_destructive=lambda _i: False,
        is_concurrency_safe=lambda _i: True,
        summarize=_summary,
        max_result_chars=40_000,
        deferred=True,                        # active, its schema puts small models' first request over budget
    ),
]
