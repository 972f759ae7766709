"""Class E of issue 32, item 7: rules name hosts, not addresses.

A ``web_fetch(domain:HOST)`` allow rule — what "always allow" writes — says the host may be fetched;
it must never open the private-address guard for that host, since the name's DNS can point anywhere
later (169.254.169.254, the cloud metadata service). The attacker's stand-in for the metadata
service is a scripted web server on 127.0.0.1; the host names resolve to it for real (``localhost``
in /etc/hosts, this machine's own name where it resolves to loopback). The effect judged: the
attacker's request log stays empty. The control: a rule naming the address itself, for a URL
naming the address, still reaches it.
"""

from __future__ import annotations

import ipaddress
import socket

import pytest

from tests.e2e.tools.webserver import WebServer, page
from tests.fakeserver import text_reply, tool_reply

TRUSTED = {"AXON_TRUST": "1"}
METADATA = "/latest/meta-data/iam/security-credentials/role"


def _loopback_names() -> list[str]:
    names = ["localhost"]
    own = socket.gethostname()
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(own, 80, type=socket.SOCK_STREAM)}
    except OSError:
        addresses = set()
    if own and own != "localhost" and addresses and all(ipaddress.ip_address(a).is_loopback for a in addresses):
        names.append(own)
    return names


@pytest.fixture
def metadata():
    srv = WebServer().start()
    srv.routes[METADATA] = page('{"AccessKeyId": "ASIA-STOLEN"}', "application/json")
    yield srv
    srv.stop()


def _fetch(server, run_axon, project, url: str, allow: list[str], *flags: str) -> str:
    (project / ".axon").mkdir(exist_ok=True)
    (project / ".axon" / "permissions.toml").write_text("allow = [" + ", ".join(f'"{a}"' for a in allow) + "]\n")
    server.add(tool_reply(("tool_search", {"query": "select:web_fetch"})), tool_reply(("web_fetch", {"url": url})),
               text_reply("done"))
    r = run_axon("run", "read the page", *flags, env=TRUSTED)
    assert r.code == 0, r.stderr
    return str(server.requests[2].messages[-1]["content"])


@pytest.mark.parametrize("name", _loopback_names())
@pytest.mark.parametrize("spelling", ["{name}", "{upper}."])
@pytest.mark.parametrize("flags", [(), ("--mode", "yolo")])
def test_a_domain_rule_never_reaches_the_address_its_name_resolves_to(server, run_axon, project, metadata,
                                                                      name, spelling, flags):
    rule = "web_fetch(domain:" + spelling.format(name=name, upper=name.upper()) + ")"
    out = _fetch(server, run_axon, project, metadata.url(METADATA, host=name), [rule], *flags)
    assert metadata.log == []
    assert "ASIA-STOLEN" not in out and out.startswith(f"Error: refused {name}")


def test_naming_the_address_too_does_not_open_it_to_a_name(server, run_axon, project, metadata):
    out = _fetch(server, run_axon, project, metadata.url(METADATA, host="localhost"),
                 ["web_fetch(domain:localhost)", "web_fetch(domain:127.0.0.1)"])
    assert metadata.log == [] and "ASIA-STOLEN" not in out


def test_a_rule_naming_the_address_reaches_a_url_naming_it(server, run_axon, project, metadata):
    """The control: the guard still opens exactly what a rule names literally."""
    out = _fetch(server, run_axon, project, metadata.url(METADATA), ["web_fetch(domain:127.0.0.1)"])
    assert "ASIA-STOLEN" in out and [e.path for e in metadata.log] == [METADATA]
