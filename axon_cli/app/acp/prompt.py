"""An ACP prompt (a list of content blocks) as axon's ``UserTurn``.

Text blocks are the user's words; a ``resource_link`` to a ``file:`` URI inside the project is attached
as an ``@path`` mention would be (capped, masked); an embedded text resource is attached with the text
the client sent (the editor's view of it); an image block is checked and scaled by the one image
loader (``axon_cli/machinery/media/imaging.py``) and rides on the turn as a picture, as ``@shot.png`` does.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from axon_cli.kernel.turn import Attachment, ImagePart, UserTurn

__all__ = ["prompt_turn", "file_uri_path", "image_part"]


def file_uri_path(uri: str) -> Path | None:
    """The local path of a ``file:`` URI (None for any other scheme)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path))


def image_part(block: Any, images: list[ImagePart]) -> str:
    """Add the image ``block`` carries (base64 ``data``) to ``images``; the line for the user (why
    not, when it cannot be: broken data, an unknown format, the turn's cap)."""
    from axon_cli.machinery.media.imaging import ImageError, prepare
    from axon_cli.session.conversation.attach import MAX_TURN_IMAGE_BYTES

    label = getattr(block, "uri", None) or f"image ({getattr(block, 'mime_type', 'unknown type')})"
    try:
        picture = prepare(base64.b64decode(block.data, validate=True), label)
    except (ValueError, ImageError) as e:
        return f"{label}: not attached ({e if isinstance(e, ImageError) else 'its data is not valid base64'})"
    if picture.part.size + sum(i.size for i in images) > MAX_TURN_IMAGE_BYTES:
        return f"{label}: not attached (the turn's pictures would pass {MAX_TURN_IMAGE_BYTES:,} bytes)"
    images.append(picture.part)
    return f"attached {label} ({picture.describe()})"


def _relative(path: Path, root: Path) -> str | None:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return None


def prompt_turn(blocks: list[Any], root: Path) -> tuple[UserTurn, list[str]]:
    """The turn for ``blocks``, and one line per attachment (or why one was not made) for the user."""
    from axon_cli.machinery.masking import mask
    from axon_cli.session.conversation.attach import attach_path

    words: list[str] = []
    attachments: list[Attachment] = []
    images: list[ImagePart] = []
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
            notes.append(image_part(block, images))
        else:
            notes.append(f"a {kind or 'content'} block was left out: axon does not read it")
    return UserTurn("\n".join(words), tuple(attachments), tuple(images)), notes
