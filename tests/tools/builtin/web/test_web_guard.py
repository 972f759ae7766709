"""The SSRF guard: which addresses are refused, and that every resolved address is checked."""

from __future__ import annotations

import ipaddress
import socket

import pytest

from axon_cli.tools.builtin.web import guard
from axon_cli.tools.builtin.web.guard import Blocked, DnsFailure, refusal, resolve_checked


@pytest.mark.parametrize("address", [
    "127.0.0.1", "127.8.9.10", "::1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "fe80::1",
    "fc00::1", "224.0.0.1", "ff02::1", "0.0.0.0", "::", "240.0.0.1", "100.64.0.1", "::ffff:127.0.0.1",
    "::ffff:169.254.169.254", "192.0.2.1",
])
def test_non_public_addresses_are_refused(address):
    assert refusal(ipaddress.ip_address(address)) is not None


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_pass(address):
    assert refusal(ipaddress.ip_address(address)) is None


def _resolving(monkeypatch, *addresses: str) -> None:
    def fake(host, port, type=0):   # noqa: A002 (getaddrinfo's own name)
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
                for a in addresses]
    monkeypatch.setattr(guard.socket, "getaddrinfo", fake)


def test_one_private_answer_among_public_ones_is_refused(monkeypatch):
    _resolving(monkeypatch, "93.184.216.34", "10.0.0.5")
    with pytest.raises(Blocked, match=r"rebind\.example \(10\.0\.0\.5\): a private address"):
        resolve_checked("rebind.example", 80, lambda: ())


def test_a_rule_naming_a_host_never_opens_its_private_addresses(monkeypatch):
    """Rules name hosts, not addresses: the name's DNS may point at the metadata service later."""
    _resolving(monkeypatch, "169.254.169.254")
    with pytest.raises(Blocked, match=r"refused intranet\.corp \(169\.254\.169\.254\): a link-local"):
        resolve_checked("intranet.corp", 80, lambda: {"intranet.corp"})
    with pytest.raises(Blocked):       # not even when the address is named too: the URL names a host
        resolve_checked("intranet.corp", 80, lambda: {"intranet.corp", "169.254.169.254"})


@pytest.mark.parametrize(("host", "named"), [("10.0.0.5", "10.0.0.5"), ("::1", "[::1]"), ("::1", "0:0::1"),
                                             ("::ffff:10.0.0.5", "10.0.0.5")])
def test_only_a_url_naming_an_address_a_rule_names_literally_reaches_it(monkeypatch, host, named):
    _resolving(monkeypatch, host)
    assert resolve_checked(host, 80, lambda: {named}) == [ipaddress.ip_address(host)]
    with pytest.raises(Blocked, match="names the address"):
        resolve_checked(host, 80, lambda: {"10.0.0.6"})


def test_dns_failure_is_its_own_error(monkeypatch):
    def fail(*_a, **_k):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    monkeypatch.setattr(guard.socket, "getaddrinfo", fail)
    with pytest.raises(DnsFailure, match="cannot resolve nowhere.example: Name or service not known"):
        resolve_checked("nowhere.example", 443, lambda: ())


def test_the_connection_goes_to_the_checked_address(monkeypatch):
    """The backend connects to the address it checked, not to the host name (no second lookup)."""
    import httpcore2 as httpcore

    _resolving(monkeypatch, "93.184.216.34")
    seen: list[str] = []
    monkeypatch.setattr(httpcore.SyncBackend, "connect_tcp", lambda self, host, *a, **k: seen.append(host) or "S")
    backend = guard.guarded_backend(httpcore, lambda: ())
    assert backend.connect_tcp("public.example", 443) == "S"
    assert seen == ["93.184.216.34"]
