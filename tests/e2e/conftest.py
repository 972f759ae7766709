"""The chat fixture of the end-to-end tests (the REPL, commands, plan mode, notifications):
``chat(*args, **env)`` starts the real ``axon chat`` in a pseudo-terminal (``ui/test_repl.Chat``)
and waits for its prompt; every chat it started is ended afterwards, none with a traceback."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.e2e.ui.test_repl import Chat


@pytest.fixture
def chat(project: Path, axon_env: dict[str, str]) -> Iterator[Callable[..., Chat]]:
    started: list[Chat] = []

    def _start(*args: str, **env: str) -> Chat:
        c = Chat(project, {**axon_env, **env}, *args)
        started.append(c)
        c.prompt()
        return c

    yield _start
    for c in started:
        if c.child.isalive():
            c.child.terminate(force=True)
        assert "Traceback" not in c.raw
