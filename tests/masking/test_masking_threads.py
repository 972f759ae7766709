"""One masker, several threads at once: chat's loop and a background job's reader both mask
output, and Hyperscan's scratch space serves one scan at a time (CI once failed on exactly this:
``ScratchInUseError`` from a job started while the dispatcher masked)."""

from __future__ import annotations

import threading

import pytest

from axon_cli.machinery.masking import Masker
from axon_cli.machinery.masking.finder import HYPERSCAN_MIN

pytest.importorskip("hyperscan")

SECRET = "ghp_" + "Z9y8X7w6V5" * 3 + "u4T3s2"


def test_threads_scanning_at_once_all_mask_and_none_fails() -> None:
    masker = Masker({})
    text = ("harmless line of build output\n" * (HYPERSCAN_MIN // 16)) + f"token {SECRET}\n"
    errors: list[BaseException] = []
    leaked: list[str] = []
    start = threading.Barrier(4)

    def scan_many() -> None:
        start.wait(timeout=30)
        try:
            for _ in range(60):
                if SECRET in masker(text):
                    leaked.append("secret survived")
        except BaseException as e:  # noqa: BLE001 - the assertion below names it
            errors.append(e)

    threads = [threading.Thread(target=scan_many) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert errors == [] and leaked == []
