"""The file tools' seam to an editor's buffers: read and write text through a client that offers it.

A frontend that talks to an editor (``axon acp``, when the client has ``fs.readTextFile`` /
``fs.writeTextFile``) puts a :class:`ClientFiles` in ``ctx.extra[CLIENT_FILES]``; read_file, edit_file
and write_file then see the editor's unsaved text and write through the editor. Only files inside the
project go through it; anything else, or a client that cannot answer, is read from disk as before.

Staleness for a buffer read cannot use the file's mtime (the buffer has none), so its record keeps
``BUFFER_MTIME`` and the hash of the text read, and the check before an edit compares the buffer's
text now with that hash.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Protocol

from axon_cli.tools.spec import ToolContext, ToolError

__all__ = ["ClientFiles", "CLIENT_FILES", "BUFFER_MTIME", "read_buffer", "record_buffer", "buffer_fresh",
           "write_buffer"]

CLIENT_FILES = "client_files"     # ctx.extra: the session's ClientFiles, when the client offers any
BUFFER_MTIME = -1                 # a FileState record of text read through the client


class ClientFiles(Protocol):
    """An editor's files: ``read_text`` gives a file's current text (None: the client cannot say, read
    the disk); ``write_text`` writes it (False: the client does not write, write the disk)."""

    def read_text(self, path: Path) -> str | None: ...

    def write_text(self, path: Path, text: str) -> bool: ...


def _client(ctx: ToolContext, path: Path) -> ClientFiles | None:
    client = ctx.extra.get(CLIENT_FILES)
    if client is None:
        return None
    try:
        path.relative_to(ctx.project_root)
    except ValueError:
        return None          # only the project's files are the editor's buffers
    return client  # type: ignore[no-any-return]


def read_buffer(ctx: ToolContext, path: Path) -> str | None:
    """The editor's text of ``path`` (unsaved changes included), or None: read the disk."""
    client = _client(ctx, path)
    return client.read_text(path) if client is not None else None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def record_buffer(ctx: ToolContext, path: Path, text: str) -> None:
    """Remember ``text`` as what the model last saw (or axon last wrote) of ``path``'s buffer."""
    ctx.file_state.record(path, BUFFER_MTIME, len(text), _digest(text))


def buffer_fresh(ctx: ToolContext, path: Path, rel: str, sha256: str) -> None:
    """Raise unless the buffer still holds the text read last (compared by content: no mtime here)."""
    now = read_buffer(ctx, path)
    if now is None and path.is_file():
        now = path.read_bytes().decode("utf-8", "replace")
    if now is None or _digest(now) != sha256:
        raise ToolError(f"{rel} was modified since your last read: read it again with read_file "
                        "before changing it")


def write_buffer(ctx: ToolContext, path: Path, text: str) -> bool:
    """Write ``text`` through the editor; False when the client does not write (write the disk)."""
    client = _client(ctx, path)
    if client is None or not client.write_text(path, text):
        return False
    record_buffer(ctx, path, text)
    return True
