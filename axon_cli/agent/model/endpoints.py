"""What kind of endpoint and model a run talks to: a local or private-network server
(``is_local_endpoint``), a small model (``is_small_model``), and from both and the ``guidance``
setting whether the answer guidance for small models is on (``guidance_on``)."""

from __future__ import annotations

import ipaddress
import re
from typing import TYPE_CHECKING
from urllib.parse import urlparse

if TYPE_CHECKING:
    from axon_cli.settings.config import Settings

__all__ = ["endpoint_address", "is_local_endpoint", "is_small_model", "guidance_on", "SMALL_MAX_BILLIONS", "SMALL_FAMILIES"]

_PRIVATE = [ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")]
SMALL_MAX_BILLIONS = 14.0
# families whose every model is small, for names that carry no parameter count ("phi3", "tinyllama")
SMALL_FAMILIES = ("phi", "tinyllama", "smollm")
# "1.5b", ":3b", "-7B", "8x7b" (experts times size), "135m"; not "a3b" (active parameters) or "v2"
_COUNT = re.compile(r"(?<![a-z0-9.])(?:(\d+)x)?(\d+(?:\.\d+)?)([bm])(?![a-z0-9])")


def is_local_endpoint(base_url: str | None) -> bool:
    """Whether ``base_url`` is on this machine or a private network."""
    if not base_url:
        return False
    host = (urlparse(base_url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or (ip.version == 4 and any(ip in net for net in _PRIVATE))


def endpoint_address(base_url: str | None) -> str:
    """``host:port`` of the endpoint (the SDK's default when unset): no scheme, path or credentials."""
    parsed = urlparse(base_url or "https://api.openai.com/v1")
    host = parsed.hostname or ""
    try:
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
    except ValueError:
        port = 443 if parsed.scheme == "https" else 80
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def is_small_model(model: str) -> bool:
    """Whether the model name says it has at most ``SMALL_MAX_BILLIONS`` parameters (its first
    parameter count decides), or names a family of small models when it carries no count."""
    name = model.lower()
    count = _COUNT.search(name)
    if count is not None:
        experts, size, unit = count.groups()
        billions = float(size) * int(experts or 1) / (1000 if unit == "m" else 1)
        return billions <= SMALL_MAX_BILLIONS
    return any(re.search(rf"(?<![a-z]){family}", name) for family in SMALL_FAMILIES)


def guidance_on(settings: Settings) -> bool:
    """The ``guidance`` setting: on, off, or (auto) on for a local endpoint or a small model."""
    if settings.guidance != "auto":
        return settings.guidance == "on"
    return is_local_endpoint(settings.base_url) or is_small_model(settings.model)
