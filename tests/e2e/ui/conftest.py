"""The chat fixture of the REPL's end-to-end tests: ``chat(*args, **env)`` starts the real ``axon chat``
in a pseudo-terminal (``test_repl.Chat``) and waits for its prompt; every chat it started is ended
afterwards, and none may have printed a traceback."""

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
