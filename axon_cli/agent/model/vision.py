"""Which models take images, and a request's images when the endpoint says it cannot take them.

``images`` in config.toml: ``on``, ``off``, or ``auto`` — the model takes images when its name matches
one of ``image_models`` (regular expressions, searched case-insensitively; the default list names
the hosted vision families and the common open vision models). When an endpoint answers a request
that carries pictures with an error about images (llama.cpp: "image input is not supported",
OpenAI: "does not support image"), the model client remembers the model for the session and sends
every request of it without pictures (``without_images``): a note stands in for each.
"""

from __future__ import annotations

import re
from typing import Any

from axon_cli.settings.config import DEFAULT_IMAGE_MODELS

__all__ = ["accepts_images", "carries_images", "refuses_images", "without_images",
           "NOT_SENT"]

NOT_SENT = "[an image was here; not sent: this model does not take images]"
_REFUSAL_WORDS = ("image", "vision", "multimodal", "multi-modal", "mmproj")
# 400/422: OpenAI, vLLM; 500: llama.cpp without its mmproj; 404: OpenRouter ("No endpoints found that
# support image input")
_REFUSAL_STATUS = frozenset({400, 404, 415, 422, 500, 501})


def accepts_images(setting: str, model: str, patterns: tuple[str, ...] | list[str] = DEFAULT_IMAGE_MODELS) -> bool:
    """Whether pictures go to ``model`` as images: ``setting`` on/off, or auto by its name."""
    if setting in ("on", "off"):
        return setting == "on"
    return any(re.search(p, model or "", re.I) for p in patterns)


def _is_image(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") in ("image_url", "input_image", "image")


def carries_images(messages: list[dict[str, Any]]) -> bool:
    """Whether any message has an image content part."""
    return any(isinstance(m.get("content"), list) and any(map(_is_image, m["content"])) for m in messages)


def refuses_images(status: int, message: str) -> bool:
    """An error answer that says the model or endpoint cannot take images."""
    low = message.lower()
    return status in _REFUSAL_STATUS and any(w in low for w in _REFUSAL_WORDS)


def without_images(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` with every image part replaced by a note (a message left with text alone is sent as
    one string: servers that refuse images may refuse content lists too). New messages; the
    conversation itself is not changed."""
    out: list[dict[str, Any]] = []
    for m in messages:
        content = m.get("content")
        if not (isinstance(content, list) and any(map(_is_image, content))):
            out.append(m)
            continue
        texts = [NOT_SENT if _is_image(p) else str(p.get("text", "")) for p in content if isinstance(p, dict)]
        out.append({**m, "content": "\n".join(t for t in texts if t)})
    return out
