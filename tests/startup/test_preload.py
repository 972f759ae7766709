"""Which endpoint the SDK thread is told about before settings exist: ``--base-url`` (both spellings),
else ``OPENAI_BASE_URL``; and the TLS context it then makes loads no certificate for plain http on a
local address only."""

from __future__ import annotations

import ssl

import pytest

from axon_cli.agent.model import tls
from axon_cli.app.preload import _named_endpoint


def test_the_named_endpoint_comes_from_the_flag_then_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://10.0.0.5:8000/v1")
    assert _named_endpoint(["run", "hi", "--base-url", "http://127.0.0.1:1/v1"]) == "http://127.0.0.1:1/v1"
    assert _named_endpoint(["run", "--base-url=https://h/v1", "hi"]) == "https://h/v1"
    assert _named_endpoint(["run", "hi"]) == "http://10.0.0.5:8000/v1"
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert _named_endpoint(["run", "hi"]) is None


@pytest.mark.parametrize("url, deferred", [
    ("http://127.0.0.1:8080/v1", True), ("http://192.168.1.9:11434/v1", True), ("HTTP://localhost:1/v1", True),
    ("https://127.0.0.1:8080/v1", False), ("http://api.example.com/v1", False), (None, False),
])
def test_certificates_are_deferred_only_for_plain_http_on_a_local_address(monkeypatch: pytest.MonkeyPatch,
                                                                          url: str | None, deferred: bool) -> None:
    for name in ("_expected", "_plain_http", "_context", "_library"):
        monkeypatch.setattr(tls, name, getattr(tls, name))
    monkeypatch.setattr(tls, "_ready", __import__("threading").Event())
    tls.expect(url)
    tls.prepare()
    context = tls._context
    assert isinstance(context, ssl.SSLContext)
    assert isinstance(context, tls.TrustOnFirstUse) == deferred
    if deferred:
        assert context.cert_store_stats()["x509_ca"] == 0 and context._real is None   # nothing loaded
        assert context.real().verify_mode == ssl.CERT_REQUIRED and context.real().check_hostname
