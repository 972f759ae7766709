"""Defaults that work on a local server with no config.

When ``base_url`` points at this machine or a private network (127.0.0.1, localhost, ::1, 10.x,
192.168.x, 172.16–31.x) — a llama.cpp server, Ollama, vLLM on the LAN — the values the user did not
set take local defaults: ``temperature`` 0.2 and ``max_tokens`` 1024 (steadier calls from small
models), and ``context_window`` as the server reports it. The server is asked with a short timeout
and its silence or failure never fails the run:

1. ``GET {base_url}/models``: the model's ``max_model_len`` (vLLM), ``context_length`` (LM Studio,
   OpenRouter-style), ``context_window`` or ``meta.n_ctx``;
2. else llama.cpp's ``GET /props``: ``default_generation_settings.n_ctx`` (the size the server
   runs with);
3. else ``meta.n_ctx_train`` from the model list (llama.cpp: what the model was trained for).

A value the user set (in a file, the environment or a flag) always wins: ``LoadedSettings`` knows
the source of each value, and the ones set here say where they came from.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from axon_cli.agent.model.endpoints import is_local_endpoint
from axon_cli.agent.model.served_model import get_json, models_listing
from axon_cli.settings.config import LoadedSettings

__all__ = ["is_local_endpoint", "apply_local_defaults", "start_local_defaults", "probe_context_window", "LOCAL_DEFAULTS",
           "PROBE_TIMEOUT", "LOCAL_SOURCE", "SERVER_SOURCE"]

log = logging.getLogger("axon.local")
LOCAL_DEFAULTS: dict[str, Any] = {"temperature": 0.2, "max_tokens": 1024}
PROBE_TIMEOUT = 2.0      # seconds per request to the server
LOCAL_SOURCE = "local endpoint default"
SERVER_SOURCE = "the local server ({})"
_MODEL_KEYS = ("max_model_len", "context_length", "context_window", "n_ctx")

Probe = Callable[[str, str | None, str], tuple[int, str] | None]


def apply_local_defaults(loaded: LoadedSettings, probe: Probe | None = None) -> list[str]:
    """Set the local defaults the user left unset; returns what was set, as ``key=value`` lines."""
    applied = _sampling_defaults(loaded)
    if applied is None:
        return []
    applied += _server_context(loaded, probe)
    if applied:
        log.debug("local endpoint %s: %s", loaded.settings.base_url, ", ".join(applied))
    return applied


def start_local_defaults(loaded: LoadedSettings, probe: Probe | None = None) -> Callable[[], None]:
    """``apply_local_defaults`` with the server asked on a thread (the SDK is still importing, and a
    run should not wait for two HTTP round trips); call what it returns before reading
    ``context_window`` (before the first request)."""
    applied = _sampling_defaults(loaded)
    if applied is None:
        return lambda: None
    log.debug("local endpoint %s: %s", loaded.settings.base_url, ", ".join(applied) or "sampling set by the user")
    thread = threading.Thread(target=_server_context, args=(loaded, probe), name="axon-context-probe", daemon=True)
    thread.start()
    return lambda: thread.join(3 * PROBE_TIMEOUT)


def _sampling_defaults(loaded: LoadedSettings) -> list[str] | None:
    """Temperature and max_tokens for a local endpoint (what was set); None when it is not local."""
    settings = loaded.settings
    if not is_local_endpoint(settings.base_url):
        return None
    applied: list[str] = []
    for key, value in LOCAL_DEFAULTS.items():
        if loaded.source(key) == "default":
            setattr(settings, key, value)
            loaded.sources[key] = LOCAL_SOURCE
            applied.append(f"{key}={value}")
    return applied


def _server_context(loaded: LoadedSettings, probe: Probe | None) -> list[str]:
    settings = loaded.settings
    if loaded.source("context_window") != "default" or not settings.base_url:
        return []
    found = (probe or probe_context_window)(settings.base_url, settings.api_key, settings.model)
    if found is None or found[0] <= 1000:
        return []
    settings.context_window = found[0]
    loaded.sources["context_window"] = SERVER_SOURCE.format(found[1])
    log.debug("local endpoint %s: context_window=%s from %s", settings.base_url, found[0], found[1])
    return [f"context_window={found[0]}"]


def probe_context_window(base_url: str, api_key: str | None, model: str,
                         timeout: float = PROBE_TIMEOUT) -> tuple[int, str] | None:
    """The context size the server reports and where it said so, or None."""
    base = base_url.rstrip("/")
    models = models_listing(base, api_key, timeout)      # asked once: the model choice read it too
    entry = _model_entry(models, model)
    for key in _MODEL_KEYS:
        n = _int(entry.get(key)) or _int((entry.get("meta") or {}).get(key))
        if n:
            return n, f"/models {key}"
    root = base[:-3] if base.endswith("/v1") else base
    props = get_json(f"{root}/props", api_key, timeout)
    n = _int(((props or {}).get("default_generation_settings") or {}).get("n_ctx")) if isinstance(props, dict) \
        else None
    if n:
        return n, "/props n_ctx"
    n = _int((entry.get("meta") or {}).get("n_ctx_train"))
    return (n, "/models n_ctx_train") if n else None


def _model_entry(models: Any, model: str) -> dict[str, Any]:
    data = models.get("data") if isinstance(models, dict) else None
    entries = [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []
    named = [e for e in entries if e.get("id") == model]
    if named:
        return named[0]
    return entries[0] if len(entries) == 1 else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
