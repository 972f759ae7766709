"""Pictures on their way to the model: those tools return (an MCP tool's image, an embedded image
resource, ``read_file`` on an image) and those attached to the user's turn (``user_content``).

A chat-completions tool message holds text only, so the pictures of a batch of results follow them
in one user message of image content parts (``data:`` URLs), each named after its call. The tool
result's text says where its pictures went: attached below, or not shown because the model does
not take images (``images`` in config.toml: auto decides by the model's name, on, off), because
they are too large, or because a picture is broken (each is checked and brought within the caps by
``axon_cli/machinery/media/imaging.py`` first).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from axon_cli.agent.model.vision import accepts_images
from axon_cli.kernel.turn import ImagePart
from axon_cli.tools.dispatch import CallResult

__all__ = ["accepts_images", "attach_images", "user_content", "image_url_part", "MAX_IMAGE_BYTES"]

MAX_IMAGE_BYTES = 5 * 1024 * 1024        # per batch of results: more is not sent


def image_url_part(image: ImagePart) -> dict[str, Any]:
    """The chat-completions content part of a picture (a ``data:`` URL)."""
    return {"type": "image_url", "image_url": {"url": f"data:{image.mime_type};base64,{image.data}"}}


def user_content(message: str, images: tuple[ImagePart, ...] | list[ImagePart],
                 accepts: bool) -> tuple[str | list[dict[str, Any]], str]:
    """A user message's content: the text, then its pictures as image parts when the model takes
    images; and the one line for the user when pictures were left out ("" when none were)."""
    if not images:
        return message, ""
    names = ", ".join(i.label or "image" for i in images)
    if not accepts:
        return message, (f"{names}: not sent, this model does not take images (set images = \"on\" in "
                         "config.toml if it does)")
    return [{"type": "text", "text": message}, *map(image_url_part, images)], ""


def _checked(images: list[ImagePart]) -> tuple[list[ImagePart], str]:
    """The pictures brought within the caps (``imaging.normalize``), or the reason one cannot be sent."""
    from axon_cli.machinery.media.imaging import ImageError, normalize

    out: list[ImagePart] = []
    for image in images:
        try:
            out.append(normalize(image))
        except ImageError as e:
            return [], f"{image.label or 'an image'}: {e}"
    return out, ""


def _note(result: CallResult, text: str) -> CallResult:
    return dataclasses.replace(result, content=f"{result.content}\n[{text}]")


def attach_images(results: list[CallResult], accepts: bool) -> tuple[list[CallResult], dict[str, Any] | None]:
    """The results with a note on each that returned pictures, and the user message carrying the
    pictures (None when there is nothing to send)."""
    out: list[CallResult] = []
    parts: list[dict[str, Any]] = []
    budget = MAX_IMAGE_BYTES
    for r in results:
        if not r.images:
            out.append(r)
            continue
        n = len(r.images)
        what = "the image" if n == 1 else f"the {n} images"
        if not accepts:
            out.append(_note(r, f"{what} not shown: this model does not take images (set images = \"on\" in "
                                f"config.toml if it does)"))
            continue
        images, why = _checked(r.images)
        if why:
            out.append(_note(r, f"{what} not shown: {why}"))
            continue
        size = sum(i.size for i in images)
        if size > budget:
            out.append(_note(r, f"{what} not shown: {size} bytes, over the {MAX_IMAGE_BYTES} bytes sent at once"))
            continue
        budget -= size
        out.append(_note(r, f"{what} follow{'s' if n == 1 else ''} in the next message"))
        parts.append({"type": "text", "text": f"{what.capitalize()} returned by {r.name} (call {r.call_id}):"})
        parts += map(image_url_part, images)
    return out, ({"role": "user", "content": parts} if parts else None)
