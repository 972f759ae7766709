"""An ACP prompt (a list of content blocks) as axon's ``UserTurn``.

Text blocks are the user's words; a ``resource_link`` to a ``file:`` URI inside the project is attached
as an ``@path`` mention would be (capped, masked); an embedded text resource is attached with the text
the client sent (the editor's view of it); an image is not passed yet (see ``image_note``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from axon_cli.turn import Attachment, UserTurn

__all__ = ["prompt_turn", "file_uri_path", "image_note"]


def file_uri_path(uri: str) -> Path | None:
    """The local path of a ``file:`` URI (None for any other scheme)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path))


def image_note(block: Any) -> str:
    """Images in a prompt. Seam for image attachments: once the user turn can carry image parts
    (the ``images`` work), turn ``block.data``/``block.mime_type`` into one here and advertise
    ``promptCapabilities.image``; until then the model is told an image was left out."""
    return f"[an image ({getattr(block, 'mime_type', 'image')}) was attached, but axon cannot pass images yet]"


def _relative(path: Path, root: Path) -> str | None:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return None


def prompt_turn(blocks: list[Any], root: Path) -> tuple[UserTurn, list[str]]:
    """The turn for ``blocks``, and one line per attachment (or why one was not made) for the user."""
    from axon_cli.masking import mask
    from axon_cli.session.attach import attach_path

    words: list[str] = []
    attachments: list[Attachment] = []
    notes: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", "")
        if kind == "text":
            words.append(block.text)
        elif kind == "resource_link":
            path = file_uri_path(block.uri)
            if path is None or not path.is_file():
                words.append(f"[{block.name}: {block.uri}]")
                continue
            attachment, line = attach_path(path.resolve(), root, named=block.name or str(path))
            notes.append(line)
            if attachment is not None:
                attachments.append(attachment)
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            if text is None:
                notes.append(f"{resource.uri}: a binary resource, not attached")
                continue
            path = file_uri_path(resource.uri)
            name = (_relative(path, root) if path is not None else None) or resource.uri
            attachments.append(Attachment(name, mask(text)))
            notes.append(f"attached {name}")
        elif kind == "image":
            words.append(image_note(block))
            notes.append("an image was left out: axon cannot pass images in a prompt yet")
        else:
            notes.append(f"a {kind or 'content'} block was left out: axon does not read it")
    return UserTurn("\n".join(words), tuple(attachments)), notes
