"""End-to-end: ``web_fetch`` through the real ``axon run`` against a local web server.

The tests that fetch allow ``web_fetch(domain:127.0.0.1)`` in a trusted project (loopback is
refused otherwise); what they assert is what the scripted model server receives as the tool
result, and what the local web server's request log shows.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import TEST_KEY
from tests.e2e.tools.webserver import WebServer, blocking, page, redirect
from tests.fakeserver import text_reply, tool_reply

TRUSTED = {"AXON_TRUST": "1"}
ALLOW_LOOPBACK = 'allow = ["web_fetch(domain:127.0.0.1)"]\n'
HTML = """<!doctype html><html><head><title>Guide</title><style>body{color:red}</style>
<script>var secret = "do not show";</script></head><body>
<h1>Install axon</h1><p>Read <a href="https://docs.example.org/guide">the guide</a> first.</p>
<h2>Usage</h2><ul><li>run it</li><li>check it</li></ul></body></html>"""


@pytest.fixture
def web():
    srv = WebServer().start()
    yield srv
    srv.stop()


def _perms(project, text: str) -> None:
    (project / ".axon").mkdir(exist_ok=True)
    (project / ".axon" / "permissions.toml").write_text(text)


def _fetch(server, run_axon, project, args: dict, *flags: str, perms: str | None = ALLOW_LOOPBACK) -> str:
    """Run one web_fetch call through axon; the tool result the model server received."""
    if perms is not None:
        _perms(project, perms)
    server.add(tool_reply(("tool_search", {"query": "select:web_fetch"})), tool_reply(("web_fetch", args)),
               text_reply("done"))
    r = run_axon("run", "read that page", *flags, env=TRUSTED)
    assert r.code == 0, r.stderr
    msg = server.requests[2].messages[-1]
    assert msg["role"] == "tool"
    return str(msg["content"])


def test_html_page_arrives_as_markdown(server, run_axon, project, web):
    web.routes["/guide"] = page(HTML)
    out = _fetch(server, run_axon, project, {"url": web.url("/guide")})
    assert "# Install axon" in out and "## Usage" in out
    assert "[the guide](https://docs.example.org/guide)" in out
    assert "run it" in out and "do not show" not in out and "color:red" not in out
    assert [e.path for e in web.log] == ["/guide"]


def test_the_api_key_and_auth_never_reach_the_site(server, run_axon, project, web):
    web.routes["/guide"] = page(HTML)
    _fetch(server, run_axon, project, {"url": web.url("/guide")})
    assert len(web.log) == 1
    headers = {k.lower(): v for k, v in web.log[0].headers.items()}
    assert "authorization" not in headers and "cookie" not in headers and "proxy-authorization" not in headers
    assert not any(TEST_KEY in v or TEST_KEY in k for k, v in headers.items())
    assert headers["user-agent"].startswith("axon/")


def test_same_host_redirect_chain_is_followed(server, run_axon, project, web):
    web.routes.update({"/a": redirect("/b"), "/b": redirect(web.url("/c"), 301), "/c": redirect("/page", 307),
                       "/page": page("<h1>Arrived</h1>")})
    out = _fetch(server, run_axon, project, {"url": web.url("/a")})
    assert "# Arrived" in out and web.url("/page") in out
    assert [e.path for e in web.log] == ["/a", "/b", "/c", "/page"]


def test_too_long_redirect_chain_is_refused(server, run_axon, project, web):
    for i in range(10):
        web.routes[f"/hop{i}"] = redirect(f"/hop{i + 1}")
    out = _fetch(server, run_axon, project, {"url": web.url("/hop0")})
    assert out.startswith("Error: too many redirects (more than 5)")
    assert [e.path for e in web.log] == [f"/hop{i}" for i in range(6)]


def test_404_is_one_line_with_the_status(server, run_axon, project, web):
    out = _fetch(server, run_axon, project, {"url": web.url("/missing")})
    assert out.startswith("Error: HTTP 404") and "\n" not in out.strip()
    assert [e.path for e in web.log] == ["/missing"]


def test_slow_server_hits_the_timeout(server, run_axon, project, web):
    web.routes["/slow"] = blocking
    out = _fetch(server, run_axon, project, {"url": web.url("/slow"), "timeout": 1})
    assert out.startswith("Error: timed out after 1s")
    assert [e.path for e in web.log] == ["/slow"]


def test_non_text_content_is_refused(server, run_axon, project, web):
    web.routes["/shot.png"] = lambda _w: (200, {"Content-Type": "image/png"}, b"\x89PNG\r\n\x1a\n\x00\x00rest")
    out = _fetch(server, run_axon, project, {"url": web.url("/shot.png")})
    assert out.startswith("Error: not text: image/png") and "\n" not in out.strip()


@pytest.mark.parametrize("flags", [("--yes",), ("--mode", "yolo")])
def test_loopback_without_a_rule_is_never_contacted(server, run_axon, project, web, flags):
    web.routes["/guide"] = page(HTML)
    out = _fetch(server, run_axon, project, {"url": web.url("/guide")}, *flags, perms=None)
    assert out.startswith("Error: refused 127.0.0.1: a loopback address")
    assert "web_fetch(domain:127.0.0.1)" in out
    assert web.log == []


def test_rule_naming_another_host_does_not_open_loopback(server, run_axon, project, web):
    web.routes["/guide"] = page(HTML)
    out = _fetch(server, run_axon, project, {"url": web.url("/guide", host="localhost")}, "--yes",
                 perms='allow = ["web_fetch(domain:*.localhost)", "web_fetch(domain:127.0.0.1)"]\n')
    assert out.startswith("Error: refused localhost")
    assert web.log == []


@pytest.mark.parametrize("target", ["http://169.254.169.254/latest/meta-data/", "LOCALHOST_B"])
def test_redirect_from_an_allowed_host_to_another_is_not_followed(server, run_axon, project, web, target):
    other = WebServer().start()
    try:
        other.routes["/secret"] = page("internal secret", "text/plain")
        location = other.url("/secret", host="localhost") if target == "LOCALHOST_B" else target
        web.routes["/go"] = redirect(location)
        out = _fetch(server, run_axon, project, {"url": web.url("/go")})
        assert "internal secret" not in out
        assert f"to another host: {location}" in out and "Not followed" in out
        assert other.log == []
        assert [e.path for e in web.log] == ["/go"]
    finally:
        other.stop()


def test_default_mode_without_yes_or_rule_is_refused(server, run_axon, project, web):
    web.routes["/guide"] = page(HTML)
    server.add(tool_reply(("tool_search", {"query": "select:web_fetch"})),
               tool_reply(("web_fetch", {"url": web.url("/guide")})), text_reply("done"))
    r = run_axon("run", "read it", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    decisions = [e for e in events if e.get("type") == "permission_decision" and e["name"] == "web_fetch"]
    assert [(d["name"], d["decision"], d["final"]) for d in decisions] == [("web_fetch", "ask", "deny")]
    assert server.requests[2].messages[-1]["content"].startswith("Permission denied")
    assert web.log == []


def test_permissions_check_names_the_domain_rule(run_axon, project):
    r = run_axon("permissions", "check", "web_fetch(domain:docs.python.org)")
    assert r.code == 0, r.stderr
    assert r.stdout.startswith("web_fetch(domain:docs.python.org): ask")
    assert 'add "web_fetch(domain:docs.python.org)" to allow' in r.stdout
    _perms(project, 'allow = ["web_fetch(domain:*.python.org)"]\ndeny = ["web_fetch(domain:evil.example)"]\n')
    allowed = run_axon("permissions", "check", "web_fetch(https://docs.python.org/3/)", env=TRUSTED)
    assert allowed.stdout.startswith("web_fetch(https://docs.python.org/3/): allow"), allowed.stdout
    denied = run_axon("permissions", "check", "web_fetch(domain:evil.example)", env=TRUSTED)
    assert denied.stdout.startswith("web_fetch(domain:evil.example): deny"), denied.stdout


def test_a_long_page_is_truncated_and_spilled_like_every_tool(server, run_axon, project, web):
    lines = "\n".join(f"line {i:05d} of the long page" for i in range(5000))
    web.routes["/long.txt"] = page(lines, "text/plain")
    out = _fetch(server, run_axon, project, {"url": web.url("/long.txt")})
    assert "chars truncated" in out and "line 00000" in out and "line 04999" in out and "line 02500" not in out
    spilled = list((project / ".axon" / "tool-results").iterdir())
    assert len(spilled) == 1 and "line 02500 of the long page" in spilled[0].read_text()


def test_prompt_is_echoed_and_selects_the_matching_sections(server, run_axon, project, web):
    filler = "<p>" + "unrelated words " * 800 + "</p>"
    web.routes["/docs"] = page(f"<h1>Intro</h1>{filler}<h2>Proxy settings</h2><p>Set HTTPS_PROXY.</p>"
                               f"<h2>History</h2>{filler}<h2>More</h2>{filler}")
    out = _fetch(server, run_axon, project, {"url": web.url("/docs"), "prompt": "proxy settings"})
    assert "Looking for: proxy settings — the 1 of 4 sections" in out
    assert "## Proxy settings\n\nSet HTTPS\\_PROXY." in out and "unrelated" not in out
