"""Pictures tools return (an MCP tool's image, an embedded image resource) on their way to the model.

A chat-completions tool message holds text only, so the pictures of a batch of results follow them
in one user message of image content parts (``data:`` URLs), each named after its call. The tool
result's text says where its pictures went: attached below, or not shown because the model does
not take images (``images`` in config.toml: auto decides by the model's name, on, off) or because
they are too large.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from axon_cli.tools.dispatch import CallResult

__all__ = ["accepts_images", "attach_images", "MAX_IMAGE_BYTES"]

MAX_IMAGE_BYTES = 5 * 1024 * 1024        # per batch of results: more is not sent
# Model names that take images (auto): hosted families and the common open vision models.
_VISION = re.compile(r"gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-4-vision|gpt-5|(^|[/-])o[134](-|$)|claude|gemini|grok-(2-)?vision|"
                     r"grok-4|pixtral|llava|bakllava|vision|-vl\b|-vl-|vl:|qwen2\.5-omni|gemma-?3|llama-?4|minicpm-v|"
                     r"moondream|internvl|mistral-small-3|mistral-medium", re.I)


def accepts_images(setting: str, model: str) -> bool:
    """Whether pictures go to the model as images: ``setting`` on/off, or auto by ``model``'s name."""
    if setting in ("on", "off"):
        return setting == "on"
    return bool(_VISION.search(model or ""))


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
        size = sum(i.size for i in r.images)
        if not accepts:
            out.append(_note(r, f"{what} not shown: this model does not take images (set images = \"on\" in "
                                f"config.toml if it does)"))
            continue
        if size > budget:
            out.append(_note(r, f"{what} not shown: {size} bytes, over the {MAX_IMAGE_BYTES} bytes sent at once"))
            continue
        budget -= size
        out.append(_note(r, f"{what} follow{'s' if n == 1 else ''} in the next message"))
        parts.append({"type": "text", "text": f"{what.capitalize()} returned by {r.name} (call {r.call_id}):"})
        parts += [{"type": "image_url", "image_url": {"url": f"data:{i.mime_type};base64,{i.data}"}}
                  for i in r.images]
    return out, ({"role": "user", "content": parts} if parts else None)
