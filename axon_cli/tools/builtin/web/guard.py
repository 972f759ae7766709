"""SSRF guard: every address a fetch connects to is checked when it connects.

A host is resolved once per connection, every address it resolves to must be public (not private,
loopback, link-local, multicast, reserved, unspecified or shared; an IPv4-mapped IPv6 address is
judged by its IPv4 address), and the connection goes to the address that was checked, so a DNS
answer that changes between check and connect (rebinding) cannot slip through. A host named exactly
by an allow rule (``web_fetch(domain:127.0.0.1)``) may resolve to private addresses.
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


def resolve_checked(host: str, port: int, named: Callable[[], Iterable[str]]) -> list[IPAddress]:
    """The addresses of ``host``, each checked; ``Blocked`` if any is not public and ``host`` is not
    among the ``named`` hosts."""
    addresses = _resolve(host, port)
    key = host.strip("[]").rstrip(".").lower()
    if key in set(named()):
        return addresses
    for ip in addresses:
        why = refusal(ip)
        if why is not None:
            shown = host if str(ip) == key else f"{host} ({ip})"
            raise Blocked(f"refused {shown}: {why}; web_fetch reaches one only when an allow rule "
                          f"names the host: web_fetch(domain:{key})")
    return addresses


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
