"""A real ACP client for the tests: the SDK's client-side connection to the real ``axon acp``.

``RecordingClient`` records every ``session/update`` and answers permission requests from a script;
``validate_raw`` checks each message axon sent against the SDK's pydantic schema models.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from acp import spawn_agent_process
from acp.connection import StreamEvent
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    ReadTextFileRequest,
    ReadTextFileResponse,
    RequestPermissionRequest,
    RequestPermissionResponse,
    SessionNotification,
    WriteTextFileRequest,
)

from tests.conftest import axon_command

__all__ = ["RecordingClient", "open_axon", "updates_of", "DEADLINE_S"]

DEADLINE_S = 60.0
_SCHEMAS: dict[str, Any] = {"session/update": SessionNotification,
                            "session/request_permission": RequestPermissionRequest,
                            "fs/read_text_file": ReadTextFileRequest,
                            "fs/write_text_file": WriteTextFileRequest}


class RecordingClient:
    """Records updates; answers ``session/request_permission`` with the next of ``answers`` ("wait": with
    ``cancelled`` once the test cancels); serves
    ``fs/read_text_file`` from ``buffers`` (absolute path → text) and takes ``fs/write_text_file`` into
    them."""

    def __init__(self, answers: list[str] | None = None, buffers: dict[str, str] | None = None) -> None:
        self.answers = list(answers or [])
        self.buffers = dict(buffers or {})
        self.updates: list[Any] = []
        self.permission_requests: list[RequestPermissionRequest] = []
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.asked = asyncio.Event()           # a permission request arrived
        self.cancelled = asyncio.Event()       # the test cancelled the turn: a "wait" answer ends
        self.raw: list[dict[str, Any]] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any],
                                 **kwargs: Any) -> RequestPermissionResponse:
        self.permission_requests.append(RequestPermissionRequest(session_id=session_id, tool_call=tool_call,
                                                                 options=options))
        self.asked.set()
        choice = self.answers.pop(0)
        if choice == "wait":                   # answered "cancelled" once the turn is cancelled
            await self.cancelled.wait()
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        assert choice in [o.option_id for o in options], (choice, options)
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=choice))

    async def read_text_file(self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
                             **kwargs: Any) -> ReadTextFileResponse:
        self.reads.append(path)
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        return ReadTextFileResponse(content=Path(path).read_text())

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> None:
        """The editor's buffer takes the text (the file on disk is left as it is)."""
        self.writes.append((path, content))
        self.buffers[path] = content

    def observe(self, event: StreamEvent) -> None:
        if event.direction.value == "incoming":
            self.raw.append(event.message)

    def validate_raw(self) -> int:
        """Parse every request and notification axon sent with the SDK's schema; how many there were."""
        count = 0
        for message in self.raw:
            schema = _SCHEMAS.get(str(message.get("method")))
            if schema is not None:
                schema.model_validate(message.get("params"))
                count += 1
            elif "method" in message:
                raise AssertionError(f"unexpected method from axon: {message['method']}")
        return count


def updates_of(client: RecordingClient, kind: str) -> list[Any]:
    return [u for u in client.updates if getattr(u, "session_update", None) == kind]


@asynccontextmanager
async def open_axon(client: RecordingClient, project: Path, env: dict[str, str],
                    stderr_path: Path) -> AsyncIterator[Any]:
    """``axon acp`` spawned in ``project`` with ``env``; its stderr goes to ``stderr_path``."""
    command = axon_command()
    with stderr_path.open("ab") as err:
        async with spawn_agent_process(client, command[0], *command[1:], "acp", env=env, cwd=project,
                                       transport_kwargs={"stderr": err},
                                       observers=[client.observe]) as (conn, process):
            try:
                yield conn
            finally:
                if process.returncode is None and process.stdin is not None:
                    process.stdin.close()
                    await asyncio.wait_for(process.wait(), DEADLINE_S)
