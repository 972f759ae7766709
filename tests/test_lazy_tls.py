"""The client for an ``http://`` endpoint builds its TLS context only when TLS is used."""

from __future__ import annotations

import ssl

from axon_cli.core.lazy_tls import _LazyTLSContext, http_client_for


def test_https_and_no_url_keep_the_sdks_own_client() -> None:
    assert http_client_for("https://api.example.com/v1") is None
    assert http_client_for(None) is None


def test_http_client_is_built_without_a_tls_context() -> None:
    made: list[ssl.SSLContext] = []

    def factory() -> ssl.SSLContext:
        made.append(ssl.create_default_context())
        return made[-1]

    lazy = _LazyTLSContext(factory)
    assert not made
    assert lazy.verify_mode == ssl.CERT_REQUIRED and lazy.check_hostname
    lazy.set_alpn_protocols(["http/1.1"])
    assert len(made) == 1
    client = http_client_for("http://127.0.0.1:1/v1")
    assert client is not None
    client.close()
