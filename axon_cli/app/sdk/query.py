"""``query``: one prompt's events as an async iterator, while the session works on a thread.

The events are the typed objects ``--output-format stream-json`` prints one per line (``SessionStarted``
first, then ``TurnStarted``, ``AssistantDelta``, ``ToolCallBegin``/``ToolCallEnd``, …, ``TurnComplete``).
An async ``approve`` callback runs on the iterating loop. Leaving the iteration early (``break``, a
cancelled task) stops the prompt as Ctrl-C would and closes the session.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

from axon_cli.agent.model.endpoints import endpoint_address
from axon_cli.app.sdk.result import Result
from axon_cli.app.sdk.sdk_session import Session
from axon_cli.kernel.events import Event, SessionStarted

__all__ = ["query"]

_DONE = object()


async def query(prompt: str, **options: Any) -> AsyncIterator[Event]:
    """Open a session with ``options`` (those of ``run``), send ``prompt``, and yield its events."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    session = await asyncio.to_thread(Session, **options)
    session.bind_loop(loop)
    rt = session.runtime
    settings = rt.loaded.settings
    queue.put_nowait(SessionStarted(session_id=rt.session_id, model=settings.model, cwd=str(session.root),
                                    mode=rt.policy.mode or settings.mode,
                                    tools=[s.name for s in rt.registry.active()],
                                    endpoint=endpoint_address(settings.base_url)))
    session.listen(lambda event: loop.call_soon_threadsafe(queue.put_nowait, event))
    outcome: list[Result | BaseException] = []

    def work() -> None:
        try:
            outcome.append(session.send(prompt))
        except BaseException as e:  # noqa: B036 - handed to the iterating task
            outcome.append(e)
        finally:
            loop.call_soon_threadsafe(queue.put_nowait, _DONE)

    worker = threading.Thread(target=work, name="axon-sdk-query", daemon=True)
    worker.start()
    try:
        while (item := await queue.get()) is not _DONE:
            yield item
        if outcome and isinstance(outcome[0], BaseException):
            raise outcome[0]
    finally:
        if worker.is_alive():
            session.cancel()
            await asyncio.to_thread(worker.join)
        await asyncio.to_thread(session.close)
