"""Secrets over several lines: a PuTTY key's private lines and base64-encoded PEM private keys
(kubeconfig ``client-key-data``, ``base64 key.pem``) are masked whole, also when the text arrives
in pieces cut anywhere; certificates and public parts stay."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from axon_cli.machinery.masking import REDACTED, Masker
from axon_cli.tools.builtin.bash.capture import StreamCapture
from tests.budget import examples

PRIVATE_LINES = ["AAAAIHB1dHR5LXByaXZhdGUta2V5LW1hdGVyaWFsLTAxMjM0NTY3ODlhYmNkZWZn",
                 "aGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODlBQkNERUZHSElKS0xNTk9QUVJT",
                 "VFVWV1hZWnB1dHR5LXByaXZhdGUta2V5LW1hdGVyaWFsLWVuZA=="]
PUBLIC_LINE = "AAAAC3NzaC1lZDI1NTE5AAAAIBjnBbz2G5u5kqbH1v3nq0m8u0ZJg6bDTmz3xHqPublic"
PPK = ("PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: deploy@ci\nPublic-Lines: 1\n"
       f"{PUBLIC_LINE}\nPrivate-Lines: 3\n" + "\n".join(PRIVATE_LINES) + "\nPrivate-MAC: 0a1b2c3d4e5f60718293a4b5c6d7e8f9\n")
KEY_BODY = "MIIEowIBAAKCAQEAzq3xR2m5nPZ7ynk9s8l0w1yOQxqFq0bTz8PzkKnb2WlV7hSecretRsaMaterial" * 8
PEM_KEY = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(
    KEY_BODY[i:i + 64] for i in range(0, len(KEY_BODY), 64)) + "\n-----END RSA PRIVATE KEY-----\n"
PEM_CERT = "-----BEGIN CERTIFICATE-----\nMIIDCertificateBodyIsPublicMIIDCertificateBodyIsPublic\n-----END CERTIFICATE-----\n"
KEY_B64 = base64.b64encode(PEM_KEY.encode()).decode()
CERT_B64 = base64.b64encode(PEM_CERT.encode()).decode()
KUBECONFIG = (f"apiVersion: v1\nusers:\n- name: admin\n  user:\n    client-certificate-data: {CERT_B64}\n"
              f"    client-key-data: {KEY_B64}\n    token: none\n")
WRAPPED = "\n".join(KEY_B64[i:i + 76] for i in range(0, len(KEY_B64), 76)) + "\n"   # what `base64 key.pem` prints
MASKER = Masker({})


def _secret_parts(text: str) -> list[str]:
    """Pieces of key material (16 characters from each line of it) that must never appear."""
    return [line[:16] for line in PRIVATE_LINES + [KEY_B64[20:], *WRAPPED.splitlines()[1:]] if len(line) >= 16]


def _leaks(text: str) -> list[str]:
    return [part for part in _secret_parts(text) if part in text]


def test_putty_private_lines_are_masked_public_lines_and_mac_stay() -> None:
    out = MASKER(PPK)
    assert _leaks(out) == [] and out.count(REDACTED) == 1
    assert PUBLIC_LINE in out and "Private-Lines: 3\n[REDACTED]\nPrivate-MAC: 0a1b2c3d" in out
    assert MASKER(out) == out


def test_kubeconfig_client_key_is_masked_certificate_stays() -> None:
    out = MASKER(KUBECONFIG)
    assert KEY_B64[16:40] not in out and f"client-key-data: {REDACTED}\n    token: none" in out
    assert CERT_B64 in out


def test_wrapped_base64_of_a_key_is_masked_whole_and_of_a_certificate_not() -> None:
    out = MASKER("$ base64 key.pem\n" + WRAPPED + "done\n")
    assert _leaks(out) == [] and out == f"$ base64 key.pem\n{REDACTED}\ndone\n"
    cert = "\n".join(CERT_B64[i:i + 76] for i in range(0, len(CERT_B64), 76)) + "\n"
    assert MASKER(cert) == cert


def _numbered(text: str, style: str) -> str:
    """``text`` as read_file (``     7\tline``), ``cat -n`` or ``grep -n`` (``7:line``) show it."""
    sep = {"read_file": "\t", "grep": ":"}[style]
    return "".join(f"{i:6d}{sep}{line}\n" if sep == "\t" else f"{i}{sep}{line}\n"
                   for i, line in enumerate(text.splitlines(), 1))


@pytest.mark.parametrize("style", ["read_file", "grep"])
def test_blocks_behind_line_numbers_are_masked(style: str) -> None:
    for text in (PPK, WRAPPED, KUBECONFIG):
        out = MASKER(_numbered(text, style))
        assert _leaks(out) == [] and REDACTED in out, (style, out[:300])
    assert PUBLIC_LINE in MASKER(_numbered(PPK, style))


def test_json_escaped_blocks_are_masked_and_stay_valid_json() -> None:
    for text in (PPK, KUBECONFIG, WRAPPED):
        encoded = json.dumps({"content": text})
        out = MASKER(encoded)
        assert json.loads(out)["content"].count(REDACTED) >= 1, out
        assert KEY_B64[16:40] not in out and PRIVATE_LINES[1] not in out


@pytest.mark.parametrize("text", ["Private-Lines: none here", "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t is a cert",
                                  "see Private-Lines: 2\nin the PuTTY docs, the next lines\nare the key"])
def test_look_alikes_stay(text: str) -> None:
    assert MASKER(text) == text


def _captured(text: str, cuts: list[int], tmp: Path) -> str:
    cap = StreamCapture(10_000_000, tmp / ".axon", "t", Masker({}))
    data, i, k = text.encode(), 0, 0
    while i < len(data):
        n = cuts[k % len(cuts)]
        cap.feed(data[i:i + n])
        i, k = i + n, k + 1
    cap.close()
    return cap.text()


@pytest.mark.slow
@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from([PPK, KUBECONFIG, WRAPPED, "build ok\n", "x" * 70 + "\n", PEM_CERT]), min_size=1,
                max_size=5).map("".join),
       st.lists(st.integers(min_value=1, max_value=300), min_size=1, max_size=12))
def test_streamed_in_any_pieces_nothing_leaks(tmp_path_factory: pytest.TempPathFactory, text: str,
                                             cuts: list[int]) -> None:
    out = _captured(text, cuts, tmp_path_factory.mktemp("cap"))
    assert _leaks(out) == [] and KEY_B64[16:40] not in out
    assert out == MASKER(text)
