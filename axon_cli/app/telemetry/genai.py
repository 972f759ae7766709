"""The OpenTelemetry GenAI semantic conventions as axon applies them: span names, the provider of an
endpoint, ``error.type`` values, the metric bucket boundaries, and whether message content may be
recorded (the standard ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``, off by default).

Spec text read: gen-ai-spans.md (inference ``chat {model}``, ``execute_tool {tool}``),
gen-ai-agent-spans.md (``invoke_agent {agent}``), gen-ai-metrics.md (``gen_ai.client.token.usage``,
``gen_ai.client.operation.duration``) of open-telemetry/semantic-conventions before the move to its
GenAI repository.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["AGENT_NAME", "TOKEN_BUCKETS", "DURATION_BUCKETS", "provider_of", "server_of", "error_type",
           "capture_content", "output_messages", "as_json"]

AGENT_NAME = "axon"
# gen-ai-metrics.md: the ExplicitBucketBoundaries each histogram SHOULD be specified with
TOKEN_BUCKETS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864)
DURATION_BUCKETS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92)
# hosts of providers the spec names (gen_ai.provider.name's well-known values)
_PROVIDERS = {"api.openai.com": "openai", "api.anthropic.com": "anthropic", "api.deepseek.com": "deepseek",
              "api.groq.com": "groq", "api.mistral.ai": "mistral_ai", "api.x.ai": "x_ai",
              "api.perplexity.ai": "perplexity", "generativelanguage.googleapis.com": "gcp.gemini",
              "api.cohere.com": "cohere", "api.cohere.ai": "cohere"}
_HTTP_STATUS = re.compile(r"\bHTTP (\d{3})\b")


def server_of(endpoint: str) -> tuple[str, int | None]:
    """``server.address`` and ``server.port`` from ``host:port`` (``[v6]:port``)."""
    host, _, port = endpoint.rpartition(":")
    if not host:
        return endpoint, None
    return host.strip("[]"), int(port) if port.isdigit() else None


def provider_of(address: str) -> str:
    """``gen_ai.provider.name``: a provider the spec names, by its API host; ``azure.ai.openai`` for
    Azure's OpenAI hosts; otherwise ``openai`` — axon speaks OpenAI's chat-completions API through the
    openai SDK to every endpoint, as the openai SDK's own instrumentation reports it."""
    host = address.lower()
    if host.endswith(".openai.azure.com"):
        return "azure.ai.openai"
    return _PROVIDERS.get(host, "openai")


def error_type(message: str) -> str:
    """A low-cardinality ``error.type`` for a failed request: the HTTP status, ``timeout``, or ``_OTHER``."""
    if (status := _HTTP_STATUS.search(message)) is not None:
        return status.group(1)
    if "timed out" in message.lower() or "timeout" in message.lower():
        return "timeout"
    return "_OTHER"


def capture_content(env: Mapping[str, str] | None = None) -> bool:
    """Whether the user opted in to recording message content (masked) on spans."""
    value = (os.environ if env is None else env).get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "")
    return value.strip().lower() in ("true", "1", "yes", "on")


def output_messages(content: str, tool_calls: list[dict[str, Any]], finish_reason: str | None) -> str:
    """``gen_ai.output.messages`` (JSON, the spec's parts format) of one reply, masked."""
    from axon_cli.machinery.masking.written import masked_text

    parts: list[dict[str, Any]] = [{"type": "text", "content": masked_text(content)}] if content else []
    for call in tool_calls:
        parts.append({"type": "tool_call", "id": str(call.get("id", "")), "name": str(call.get("name", "")),
                      "arguments": _decoded(masked_text(str(call.get("arguments", ""))))})
    return as_json([{"role": "assistant", "parts": parts, "finish_reason": finish_reason or "stop"}])


def as_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _decoded(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text
