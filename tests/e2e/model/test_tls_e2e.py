"""HTTPS endpoints through the real ``axon run``: the client's TLS context is made ahead on the SDK
import thread (``agent/model/tls.py``); it must verify exactly as the SDK's own would.

The attacker is an endpoint whose certificate is not trusted (self-signed) or names another host:
the effect asserted is that it never receives a request (no prompt, no API key). Trust given the
way the SDK honours it (``SSL_CERT_FILE``) makes the same endpoint work."""

from __future__ import annotations

import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import axon_command
from tests.fakeserver import ScriptedServer, error_reply, text_reply


def _certificate(tmp: Path, san: str) -> tuple[Path, Path]:
    cert, key = tmp / f"{san.replace(':', '_')}.pem", tmp / f"{san.replace(':', '_')}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "2", "-subj", "/CN=axon-test", "-addext", f"subjectAltName={san}"],
                   check=True, capture_output=True, timeout=60)
    return cert, key


def _tls_server(cert: Path, key: Path) -> ScriptedServer:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    return ScriptedServer([text_reply("over tls")], tls=ctx)


@pytest.fixture
def https_env(project: Path, axon_env: dict[str, str]) -> Iterator[dict[str, str]]:
    (project / ".axon").mkdir(exist_ok=True)
    (project / ".axon" / "config.toml").write_text("max_attempts = 1\n")
    env = {k: v for k, v in axon_env.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
    yield env


def _run(project: Path, env: dict[str, str], url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*axon_command(), "run", "hi"], cwd=project, env={**env, "OPENAI_BASE_URL": url},
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


# ``redirected``: the run starts against a plain-http local endpoint, so no certificate is loaded at
# start (``TrustOnFirstUse``), and that server redirects the request to the https one (the SDK follows
# redirects): the first TLS connection must still be verified exactly as the library would.
def _reach(project: Path, env: dict[str, str], target: ScriptedServer,
           redirected: bool) -> subprocess.CompletedProcess[str]:
    if not redirected:
        return _run(project, env, target.url)
    moved = error_reply(307, "moved")
    moved.headers = {"Location": f"{target.url}/chat/completions"}
    with ScriptedServer([moved]) as plain:
        done = _run(project, env, plain.url)
    assert len(plain.requests) == 1          # the run did start against the plain-http endpoint
    return done


@pytest.mark.parametrize("redirected", [False, True], ids=["direct", "redirected-from-plain-http"])
def test_an_untrusted_certificate_gets_no_request(project: Path, https_env: dict[str, str], tmp_path: Path,
                                                  redirected: bool) -> None:
    cert, key = _certificate(tmp_path, "IP:127.0.0.1")
    with _tls_server(cert, key) as server:
        done = _reach(project, https_env, server, redirected)
    assert done.returncode != 0
    assert server.requests == []
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("redirected", [False, True], ids=["direct", "redirected-from-plain-http"])
def test_a_certificate_trusted_through_ssl_cert_file_works(project: Path, https_env: dict[str, str],
                                                          tmp_path: Path, redirected: bool) -> None:
    cert, key = _certificate(tmp_path, "IP:127.0.0.1")
    with _tls_server(cert, key) as server:
        done = _reach(project, {**https_env, "SSL_CERT_FILE": str(cert)}, server, redirected)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "over tls\n"
    assert len(server.requests) == 1


def test_a_trusted_certificate_for_another_host_gets_no_request(project: Path, https_env: dict[str, str],
                                                               tmp_path: Path) -> None:
    cert, key = _certificate(tmp_path, "DNS:api.example.invalid")
    with _tls_server(cert, key) as server:
        done = _run(project, {**https_env, "SSL_CERT_FILE": str(cert)}, server.url)
    assert done.returncode != 0
    assert server.requests == []
