"""Permission for ``web_fetch``: network access is its own fact, decided by the URL's host.

A rule ``web_fetch(domain:HOST)`` names one host (``docs.python.org``, ``127.0.0.1``; any port);
``web_fetch(domain:*.python.org)`` names every subdomain of ``python.org`` (not ``python.org``
itself); ``web_fetch`` alone names every URL; any other pattern is a glob over the whole URL.
Precedence is the usual deny > ask > allow > mode. ``read-only`` mode denies a fetch (a request
reaches beyond the machine and its URL can carry data out, like ``curl``), allow rules included;
``yolo`` runs it; every other mode asks, suggesting the host's rule as "always allow".
A rule decides whether a host may be fetched, never where it may connect: a private or loopback
address is reached only by a URL naming that IP literally, allowed by a rule naming the same IP
(``web_fetch(domain:127.0.0.1)``); a rule naming a host by name never opens one, whatever its DNS
says (the SSRF guard, ``tools/builtin/web/guard.py``, checks every connection).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

from axon_cli.policy.base import Decision
from axon_cli.policy.decision_context import DecisionContext
from axon_cli.policy.rules import Rule, bash_regex

__all__ = ["decide_web", "host_of", "domain_match", "named_hosts", "hosts_named_by", "DOMAIN_PREFIX", "TOOL"]

TOOL = "web_fetch"
DOMAIN_PREFIX = "domain:"


def normalize_host(host: str) -> str:
    """A host as rules compare it: lower case, no trailing dot, no IPv6 brackets, IDNA-encoded."""
    host = host.strip().strip("[]").rstrip(".").lower()
    try:
        return host.encode("idna").decode("ascii") if not host.isascii() else host
    except UnicodeError:
        return host


def host_of(url: str) -> str | None:
    """The host of an http(s) URL, normalized; None when ``url`` is not one."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    return normalize_host(host)


def domain_match(pattern: str, host: str) -> bool:
    """Whether a ``domain:`` pattern (without the prefix) names ``host``."""
    pattern = normalize_host(pattern)
    if pattern.startswith("*."):
        return host.endswith(pattern[1:]) and len(host) > len(pattern) - 1
    return host == pattern


def _hits(rule: Rule, url: str, host: str) -> bool:
    if rule.pattern is None:
        return True
    if rule.pattern.startswith(DOMAIN_PREFIX):
        return domain_match(rule.pattern[len(DOMAIN_PREFIX):], host)
    return bool(bash_regex(rule.pattern).match(url.strip()))


def decide_web(tool_input: dict[str, Any], destructive: bool, ctx: DecisionContext) -> Decision:
    """Decide one ``web_fetch`` call from its URL's host, the rules and the mode."""
    url = str(tool_input.get("url", ""))
    host = host_of(url)
    if host is None:
        return Decision("deny", f"{TOOL}: not an http(s) URL ({url[:200]!r})", "web_fetch", destructive)
    subject = f"{TOOL} {host}"
    suggested = f"{TOOL}({DOMAIN_PREFIX}{host})"
    for action in ("deny", "ask", "allow"):
        rule = next((r for r in ctx.rules.of(action, TOOL) if _hits(r, url, host)), None)   # type: ignore[arg-type]
        if rule is None:
            continue
        if action == "deny":
            return Decision("deny", subject, rule.describe(), destructive)
        if ctx.mode == "read-only":
            break
        if action == "ask":
            return Decision("ask", f"matches an ask rule ({subject})", rule.describe(), destructive, suggested)
        return Decision("allow", f"allowed by a rule ({subject})", rule.describe(), destructive)
    if ctx.mode == "read-only":
        return Decision("deny", f"{subject} reaches the network", "mode read-only", destructive)
    if ctx.mode == "yolo":
        return Decision("allow", "yolo", ctx.mode_by(), destructive)
    return Decision("ask", f"reaches the network ({host})", ctx.mode_by(), destructive, suggested)


def named_hosts(rules: Iterable[Rule]) -> frozenset[str]:
    """The hosts named exactly by ``web_fetch(domain:HOST)`` allow rules (the guard opens the private
    addresses among them that are IP literals, for URLs naming them)."""
    out = set()
    for rule in rules:
        pattern = rule.pattern or ""
        if rule.action == "allow" and rule.tool == TOOL and pattern.startswith(DOMAIN_PREFIX) and "*" not in pattern:
            out.add(normalize_host(pattern[len(DOMAIN_PREFIX):]))
    return frozenset(out)


def hosts_named_by(policy: object) -> Callable[[], frozenset[str]]:
    """``named_hosts`` of a policy's rules, read at each fetch (an "always allow" given during the
    session counts); a policy without rules names none."""
    rules = getattr(policy, "rules_with_sources", None)
    return lambda: named_hosts(rules()) if callable(rules) else frozenset()
