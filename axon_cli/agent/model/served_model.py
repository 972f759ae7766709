"""The model to name when none is configured: the one model the endpoint serves.

With no ``--model``, no ``AXON_MODEL`` and no ``model`` in any config file, a request would name the
built-in default (``gpt-4o-mini``) — a model a llama.cpp, vLLM or Ollama server with one model
loaded does not have. So when the endpoint is not the default one and its ``GET /models`` lists
exactly one model, that model is used (``choose_served_model``), and the source of ``model`` says
so. Two or more models, none, an error, silence: the default stays, without a word of complaint.

The model list is asked for once per process (``models_listing`` keeps it): the probe of the
server's context window (``local_defaults``) reads the same answer.
"""

from __future__ import annotations

import json
import logging
import threading
import urllib.request
from typing import Any

from axon_cli.settings.config import LoadedSettings

__all__ = ["choose_served_model", "models_listing", "get_json", "SERVED_SOURCE", "LIST_TIMEOUT"]

log = logging.getLogger("axon.local")
LIST_TIMEOUT = 2.0                    # seconds for the model list
SERVED_SOURCE = "the only model {url} lists"
_LISTINGS: dict[str, Any] = {}        # URL of a model list -> its JSON (None: no usable answer)
_LOCK = threading.Lock()


def get_json(url: str, api_key: str | None, timeout: float) -> Any:
    """``url``'s JSON, or None on any failure (no answer, an error status, not JSON)."""
    headers = {"Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    try:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))   # the user's server: no proxy
        with opener.open(urllib.request.Request(url, headers=headers), timeout=timeout) as resp:
            return json.loads(resp.read(1_000_000))
    except Exception as e:   # the server did not say
        log.debug("asking %s: %s", url, e)
        return None


def models_listing(base_url: str, api_key: str | None, timeout: float = LIST_TIMEOUT) -> Any:
    """``GET {base_url}/models`` as JSON (or None), asked once per process."""
    url = base_url.rstrip("/") + "/models"
    with _LOCK:
        if url not in _LISTINGS:
            _LISTINGS[url] = get_json(url, api_key, timeout)
        return _LISTINGS[url]


def served_models(listing: Any) -> list[str]:
    data = listing.get("data") if isinstance(listing, dict) else None
    return [e["id"] for e in data if isinstance(e, dict) and isinstance(e.get("id"), str) and e["id"]] \
        if isinstance(data, list) else []


def choose_served_model(loaded: LoadedSettings) -> str | None:
    """Use the endpoint's only model when the user set none; the model chosen, or None."""
    settings = loaded.settings
    if loaded.source("model") != "default" or not settings.base_url:
        return None        # a model the user named always wins; api.openai.com serves many
    models = served_models(models_listing(settings.base_url, settings.api_key))
    if len(models) != 1:
        return None
    settings.model = models[0]
    loaded.sources["model"] = SERVED_SOURCE.format(url=settings.base_url.rstrip("/") + "/models")
    log.debug("no model set: using %s, the only one the endpoint lists", models[0])
    return models[0]
