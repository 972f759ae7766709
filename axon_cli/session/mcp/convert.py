"""MCP wire objects → axon's: a listed tool → ``RemoteTool``, a tool result → ``ToolOutput`` (its
pictures as ``ImagePart``s, which the loop sends to a model that takes images).

Only attribute access on the SDK's objects, so this module imports nothing from the SDK.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from axon_cli.tools.spec import ImagePart, ToolOutput

__all__ = ["RemoteTool", "remote_tool", "result_output", "content_text"]


@dataclass
class RemoteTool:
    """One tool as a server lists it. Hints follow the MCP spec defaults: a tool is assumed to
    write (readOnlyHint false) and, when it writes, to be destructive (destructiveHint true)."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    read_only: bool = False
    destructive: bool = True
    title: str = ""


def remote_tool(tool: Any) -> RemoteTool:
    ann = getattr(tool, "annotations", None)
    read_only = bool(getattr(ann, "read_only_hint", None))
    destructive_hint = getattr(ann, "destructive_hint", None)
    destructive = not read_only and (True if destructive_hint is None else bool(destructive_hint))
    schema = getattr(tool, "input_schema", None)
    title = getattr(tool, "title", None) or getattr(ann, "title", None) or ""
    return RemoteTool(name=str(tool.name), description=str(getattr(tool, "description", None) or ""),
                      input_schema=dict(schema) if isinstance(schema, dict) else {"type": "object"},
                      read_only=read_only, destructive=destructive, title=str(title))


def content_text(block: Any, images: list[ImagePart] | None = None) -> str:
    """One content block as text. A picture (an image block, or an embedded resource of an image
    type) is added to ``images`` when a list is given and named in the text; other binary content
    becomes a one-line summary."""
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(getattr(block, "text", ""))
    if kind == "image" and images is not None:
        return _picture(images, str(getattr(block, "mime_type", "") or "image/png"),
                        str(getattr(block, "data", "") or ""), "")
    if kind in ("image", "audio"):
        data = str(getattr(block, "data", "") or "")
        return f"[{kind} {getattr(block, 'mime_type', '') or ''}, {len(data) * 3 // 4} bytes, not shown]"
    if kind == "resource":
        res = getattr(block, "resource", None)
        text = getattr(res, "text", None)
        if isinstance(text, str):
            return text
        blob = str(getattr(res, "blob", "") or "")
        mime = getattr(res, "mime_type", None) or "binary"
        uri = str(getattr(res, "uri", ""))
        if images is not None and mime.startswith("image/"):
            return _picture(images, mime, blob, uri)
        return f"[resource {uri} ({mime}), {len(blob) * 3 // 4} bytes, not shown]"
    if kind == "resource_link":
        name = getattr(block, "name", "") or ""
        return f"[resource link: {getattr(block, 'uri', '')}{' ' + name if name else ''}]"
    return f"[{kind or 'unknown'} content, not shown]"


def _picture(images: list[ImagePart], mime: str, data: str, uri: str) -> str:
    label = f"image {len(images) + 1}"
    part = ImagePart(mime, data, uri or label)
    images.append(part)
    return f"[{label}: {mime}, {part.size} bytes{' from ' + uri if uri else ''}]"


def result_output(result: Any) -> ToolOutput:
    """A ``CallToolResult`` as axon's ToolOutput; ``isError`` makes an error the model reads."""
    images: list[ImagePart] = []
    parts = [content_text(b, images) for b in getattr(result, "content", None) or []]
    text = "\n".join(p for p in parts if p)
    structured = getattr(result, "structured_content", None)
    if not text and structured is not None:
        text = json.dumps(structured, ensure_ascii=False, indent=1)
    is_error = bool(getattr(result, "is_error", False))
    if is_error:
        text = text if text.startswith("Error:") else f"Error: {text or 'the tool failed'}"
        return ToolOutput(text, is_error=True, summary=text.splitlines()[0][:100])
    lines = text.count("\n") + 1 if text else 0
    return ToolOutput(text or "(no output)", summary=f"{lines} line{'s' if lines != 1 else ''}", images=images)
