"""``web_fetch`` permission: domain rules, their precedence, and the mode ladder."""

from __future__ import annotations

from pathlib import Path

import pytest

from axon_cli.policy.decide import decide
from axon_cli.policy.rules import rules_from_data
from axon_cli.policy.web import domain_match, host_of, named_hosts


def web(url: str, mode: str = "default", **rules: list[str]):  # type: ignore[no-untyped-def]
    ruleset = rules_from_data(dict(rules), ".axon/permissions.toml")
    return decide("web_fetch", "other", {"url": url}, False, False, mode, ruleset, Path("/p"), Path("/h"))


@pytest.mark.parametrize("url,host", [
    ("https://Docs.Python.org/3/", "docs.python.org"), ("http://127.0.0.1:8080/x", "127.0.0.1"),
    ("https://[::1]/", "::1"), ("https://example.com./", "example.com"), ("ftp://example.com/", None),
    ("file:///etc/passwd", None), ("not a url", None), ("https://bücher.de/", "xn--bcher-kva.de"),
])
def test_host_of(url, host):
    assert host_of(url) == host


@pytest.mark.parametrize("pattern,host,hit", [
    ("docs.python.org", "docs.python.org", True), ("docs.python.org", "python.org", False),
    ("*.python.org", "docs.python.org", True), ("*.python.org", "a.b.python.org", True),
    ("*.python.org", "python.org", False), ("*.python.org", "evilpython.org", False),
    ("Docs.Python.Org.", "docs.python.org", True), ("python.org", "python.org.evil.com", False),
])
def test_domain_match(pattern, host, hit):
    assert domain_match(pattern, host) is hit


@pytest.mark.parametrize("mode,behavior", [
    ("read-only", "deny"), ("default", "ask"), ("accept-edits", "ask"), ("auto", "ask"),
    ("yolo", "allow"),
])
def test_without_rules_the_network_asks_below_yolo(mode, behavior):
    d = web("https://docs.python.org/3/", mode)
    assert d.behavior == behavior
    if behavior == "ask":
        assert d.suggested_rule == "web_fetch(domain:docs.python.org)"


def test_allow_rule_names_the_domain_only():
    allow = ["web_fetch(domain:docs.python.org)"]
    assert web("https://docs.python.org/3/library/", allow=allow).behavior == "allow"
    assert web("https://evil.example/?docs.python.org", allow=allow).behavior == "ask"
    assert web("https://docs.python.org.evil.example/", allow=allow).behavior == "ask"


def test_deny_beats_ask_beats_allow_and_read_only_is_a_floor():
    rules = {"allow": ["web_fetch"], "ask": ["web_fetch(domain:*.example.org)"],
             "deny": ["web_fetch(domain:bad.example.org)"]}
    assert web("https://bad.example.org/", **rules).behavior == "deny"
    assert web("https://ok.example.org/", **rules).behavior == "ask"
    assert web("https://elsewhere.net/", **rules).behavior == "allow"
    assert web("https://elsewhere.net/", "read-only", **rules).behavior == "deny"


def test_a_url_that_is_not_http_is_denied():
    assert web("file:///etc/passwd", "yolo", allow=["web_fetch"]).behavior == "deny"


def test_named_hosts_are_exact_allow_rules_only():
    rules = rules_from_data({"allow": ["web_fetch(domain:127.0.0.1)", "web_fetch(domain:*.corp)", "web_fetch",
                                       "web_fetch(domain:LocalHost)", "bash(domain:10.0.0.1)"],
                             "deny": ["web_fetch(domain:10.0.0.2)"]}, "x")
    assert named_hosts(rules.rules) == frozenset({"127.0.0.1", "localhost"})
