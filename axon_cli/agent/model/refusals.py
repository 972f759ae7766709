"""How the model client adapts to what an endpoint refuses, each once and then for the session:
pictures (the model takes none), ``content: null`` on an assistant call (send ""), an optional
parameter the server does not know (drop it). Each answers whether the request should be sent again."""

from __future__ import annotations

import logging
from typing import Any, Protocol

from axon_cli.agent.model.llm_http import api_message, empty_error
from axon_cli.agent.model.vision import carries_images
from axon_cli.agent.model.vision import refuses_images as names_images
from axon_cli.kernel.events import EventSink, Notice
from axon_cli.settings.config import Settings

__all__ = ["OPTIONAL_PARAMS", "AdaptingClient", "refuses_images", "refuses_null_content", "drop_unsupported_param",
           "null_call_content", "error_kind"]

log = logging.getLogger("axon.llm")
OPTIONAL_PARAMS = ("stream_options", "tool_choice", "parallel_tool_calls", "stop")


class AdaptingClient(Protocol):
    """What the adaptations read and change on the client (``LLMClient``)."""

    settings: Settings
    emit: EventSink
    no_images: set[str]
    null_content: bool
    dropped_params: set[str]


def refuses_images(client: AdaptingClient, e: Any, params: dict[str, Any]) -> bool:
    """An error about images answering a request that carries pictures: this model takes none for
    the rest of the session (every request of it goes without them), and the request is sent again."""
    message = api_message(e)
    if not names_images(e.status_code, f"{message} {error_kind(e)}") or \
            not carries_images(params.get("messages", [])):
        return False
    client.no_images.add(client.settings.model)
    log.info("endpoint refused images (HTTP %s: %s); sending without them", e.status_code, message[:100])
    client.emit(Notice(message=f"the endpoint does not take images (HTTP {e.status_code}: {message[:120]}); "
                             f"sending {client.settings.model}'s requests without them from now on"))
    return True


def refuses_null_content(client: AdaptingClient, e: Any, params: dict[str, Any]) -> bool:
    """A 4xx/5xx about message content while an assistant call had ``content: null`` (llama-cpp-python
    validates it as a string): send "" instead from now on, once."""
    text = api_message(e).lower()
    if (not client.null_content or e.status_code < 400 or not ("content" in text or "validation" in text)
            or not any(null_call_content(m) for m in params.get("messages", []))):
        return False
    client.null_content = False
    log.info("endpoint rejected content null (HTTP %s: %s); sending empty strings", e.status_code, text[:100])
    client.emit(Notice(message="the endpoint rejects an empty assistant content as null; sending \"\" instead"))
    return True


def drop_unsupported_param(client: AdaptingClient, e: Any, params: dict[str, Any]) -> bool:
    """A 4xx/5xx naming an optional parameter: retry once without it, and remember."""
    if e.status_code < 400:
        return False
    text = api_message(e).lower()
    names = [n for n in OPTIONAL_PARAMS if n in params and n not in client.dropped_params]
    named = [n for n in names if n in text]
    if not named and empty_error(text) and "tool_choice" in names:
        # llama.cpp-style servers answer a tool_choice they cannot honour with a bare 500; without
        # it the request means the same ("auto" is the default when tools are sent).
        named = ["tool_choice"]
    if not named:
        return False
    name = named[0]
    client.dropped_params.add(name)
    log.info("endpoint rejected %s (HTTP %s: %s); retrying without it", name, e.status_code, text[:100])
    client.emit(Notice(message=f"the endpoint does not support '{name}'; continuing without it"))
    return True


def null_call_content(message: dict[str, Any]) -> bool:
    return message.get("role") == "assistant" and message.get("content") is None and bool(message.get("tool_calls"))


def error_kind(e: Any) -> str:
    """The ``type`` and ``code`` of an error body (``exceed_context_size_error``), or ""."""
    body = getattr(e, "body", None)
    err = body.get("error", body) if isinstance(body, dict) else None
    return " ".join(str(err.get(k) or "") for k in ("type", "code")) if isinstance(err, dict) else ""
