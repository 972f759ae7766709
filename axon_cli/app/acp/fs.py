"""The client's ``fs`` methods as the file tools' ``ClientFiles`` (``tools/builtin/files/buffers.py``).

When the client says it can read (``fs.readTextFile``) or write (``fs.writeTextFile``) text files,
read_file, edit_file and write_file go through it, so the editor's unsaved buffers are what the model
reads and edits. Calls are made from the turn's thread and wait on the connection's loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from axon_cli.tools.spec import ToolError

__all__ = ["ClientFs", "CLIENT_TIMEOUT_S"]

log = logging.getLogger("axon.acp")
CLIENT_TIMEOUT_S = 60.0


def call_on_loop(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any],
                 timeout: float = CLIENT_TIMEOUT_S) -> Any:
    """Run ``coro`` on the connection's loop and wait for its result (from another thread)."""
    return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout)


class ClientFs:
    """Reads and writes through the ACP client (``conn``) for session ``session_id``."""

    def __init__(self, conn: Any, loop: asyncio.AbstractEventLoop, session_id: str, *, can_read: bool,
                 can_write: bool) -> None:
        self.conn = conn
        self.loop = loop
        self.session_id = session_id
        self.can_read = can_read
        self.can_write = can_write

    def read_text(self, path: Path) -> str | None:
        if not self.can_read:
            return None
        try:
            reply = call_on_loop(self.loop, self.conn.read_text_file(session_id=self.session_id, path=str(path)))
        except Exception as e:        # the client cannot read it (no buffer, an error): the disk answers
            log.info("client fs/read_text_file failed for %s: %s", path, e)
            return None
        content = getattr(reply, "content", None)
        return content if isinstance(content, str) else None

    def write_text(self, path: Path, text: str) -> bool:
        if not self.can_write:
            return False
        try:
            call_on_loop(self.loop, self.conn.write_text_file(session_id=self.session_id, path=str(path),
                                                              content=text))
        except Exception as e:
            raise ToolError(f"the editor could not write {path}: {e}") from None
        return True
