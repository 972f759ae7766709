"""``loopback_only``: which network commands name only this machine's loopback (they stay in the
sandbox, whose loopback holds the session's servers); anything that could name another host does not."""

from __future__ import annotations

import pytest

from axon_cli.shell.loopback import loopback_only


@pytest.mark.parametrize("argv", [
    ["curl", "-sS", "http://127.0.0.1:8000/"], ["curl", "localhost:3000/api"], ["wget", "-qO-", "http://[::1]:80/x"],
    ["nc", "-z", "127.0.0.1", "5432"], ["curl", "https://localhost/", "http://127.1.2.3:9/"],
])
def test_loopback_targets(argv: list[str]) -> None:
    assert loopback_only(argv)


@pytest.mark.parametrize("argv", [
    ["curl", "https://example.com/"], ["curl", "http://localhost.example.com/"],
    ["curl", "http://127.0.0.1@example.com/"], ["curl", "http://localhost:80@example.com/"],
    ["wget", "http://127.0.0.1.nip.io/"], ["curl", "http://localhost/", "https://example.com/"],
    ["curl", "-o", "page.html", "http://localhost/"], ["curl"], ["nc", "10.0.0.5", "22"],
])
def test_anything_else_is_not(argv: list[str]) -> None:
    assert not loopback_only(argv)
