"""SSRF guard: every address a fetch connects to is checked when it connects.

A host is resolved once per connection, every address it resolves to must be public (not private,
loopback, link-local, multicast, reserved, unspecified or shared; an IPv4-mapped IPv6 address is
judged by its IPv4 address), and the connection goes to the address that was checked, so a DNS
answer that changes between check and connect (rebinding) cannot slip through.

Rules name hosts, not addresses: a ``web_fetch(domain:HOST)`` allow rule (what "always allow" writes)
never opens a non-public address, since the name's DNS may point anywhere later (169.254.169.254,
the cloud metadata service). Only a URL whose host *is* an IP literal that an allow rule names
literally (``web_fetch(domain:127.0.0.1)``) reaches that address; it is checked at every connection
(after each resolution, on every redirect hop), so no name ever borrows the address's rule.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["Blocked", "DnsFailure", "refusal", "resolve_checked", "guarded_backend"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class Blocked(Exception):
    """A connection the guard refused (the message says which address and why)."""


class DnsFailure(Exception):
    """The host did not resolve."""


def refusal(ip: IPAddress) -> str | None:
    """Why ``ip`` may not be fetched without a rule naming its host; None for a public address."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return refusal(ip.ipv4_mapped)
    for kind, hit in (("loopback", ip.is_loopback), ("link-local", ip.is_link_local),
                      ("multicast", ip.is_multicast), ("unspecified", ip.is_unspecified),
                      ("private", ip.is_private), ("reserved", ip.is_reserved)):
        if hit:
            return f"a {kind} address"
    if not ip.is_global:
        return "not a public address"
    return None


def _resolve(host: str, port: int) -> list[IPAddress]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as e:
        raise DnsFailure(f"cannot resolve {host}: {getattr(e, 'strerror', None) or e}") from None
    out: list[IPAddress] = []
    for info in infos:
        ip = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if ip not in out:
            out.append(ip)
    if not out:
        raise DnsFailure(f"cannot resolve {host}: no addresses")
    return out


def _literal(text: str) -> IPAddress | None:
    """``text`` as an IP address (an IPv4-mapped IPv6 one as its IPv4 address); None for a name."""
    try:
        ip = ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _opened_address(host: str, named: Iterable[str]) -> IPAddress | None:
    """The non-public address a fetch of ``host`` may reach: ``host`` itself when it is an IP literal
    that one of the ``named`` hosts names literally; None otherwise (a name never opens one)."""
    literal = _literal(host)
    if literal is None:
        return None
    return literal if any(_literal(n) == literal for n in named) else None


def resolve_checked(host: str, port: int, named: Callable[[], Iterable[str]]) -> list[IPAddress]:
    """The addresses of ``host``, each checked; ``Blocked`` if any is not public, unless it is the
    address ``host`` names literally and an allow rule names that address (``_opened_address``)."""
    addresses = _resolve(host, port)
    key = host.strip("[]").rstrip(".").lower()
    opened = _opened_address(key, named())
    for ip in addresses:
        why = refusal(ip)
        if why is None or (opened is not None and _literal(str(ip)) == opened):
            continue
        if _literal(str(ip)) == _literal(key):
            raise Blocked(f"refused {host}: {why}; web_fetch reaches one only when an allow rule "
                          f"names the address: web_fetch(domain:{key})")
        raise Blocked(f"refused {host} ({ip}): {why}; a rule naming a host never opens a non-public "
                      f"address: fetch the address itself (http://{_bracketed(ip)}/…) with an allow rule "
                      f"web_fetch(domain:{ip})")
    return addresses


def _bracketed(ip: IPAddress) -> str:
    return f"[{ip}]" if ip.version == 6 else str(ip)


def guarded_backend(httpcore: Any, named: Callable[[], Iterable[str]]) -> Any:
    """An httpcore network backend that connects only to checked addresses."""

    class GuardedBackend(httpcore.SyncBackend):   # type: ignore[misc, name-defined]
        def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                        local_address: str | None = None, socket_options: Any = None) -> Any:
            addresses = resolve_checked(host, port, named)
            last: Exception | None = None
            for ip in addresses:
                try:
                    return super().connect_tcp(str(ip), port, timeout, local_address, socket_options)
                except httpcore.ConnectError as e:
                    last = e
            assert last is not None
            raise last

    return GuardedBackend()
