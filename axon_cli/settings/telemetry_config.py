"""The ``[telemetry]`` config table, and THE rule that decides whether telemetry is on.

Standard library and pydantic only: the rule runs at every start, and telemetry is off by default,
so nothing here may import OpenTelemetry.

The rule (README, "Telemetry"):

- ``OTEL_SDK_DISABLED=true`` turns it off, whatever else says;
- ``[telemetry] enabled = false`` keeps it off (``OTEL_*`` variables exported for other programs then
  do not reach axon); ``enabled = true`` turns it on;
- with ``enabled`` unset it is on when ``OTEL_TRACES_EXPORTER`` or ``OTEL_METRICS_EXPORTER`` names an
  exporter other than ``none``, or an ``OTEL_EXPORTER_OTLP_*ENDPOINT`` variable is set.

Each signal then goes to its exporter: ``OTEL_TRACES_EXPORTER`` / ``OTEL_METRICS_EXPORTER`` =
``otlp`` (the default), ``console`` (stderr) or ``none``. The table's ``endpoint``, ``protocol`` and
``headers`` win over ``OTEL_EXPORTER_OTLP_ENDPOINT``, ``…_PROTOCOL`` and ``…_HEADERS``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["TelemetryConfig", "TelemetryPlan", "plan_telemetry", "ENDPOINT_VARS", "INSTALL_HINT"]

INSTALL_HINT = "pip install 'axon-cli[telemetry]'"
ENDPOINT_VARS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                 "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
Exporter = Literal["otlp", "console", "none"]
Protocol = Literal["grpc", "http/protobuf"]


class TelemetryConfig(BaseModel):
    """``[telemetry]``: OpenTelemetry traces and metrics (spans per turn, model request and tool call;
    never content, arguments, paths or secrets)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool | None = Field(None, description="true: on; false: off even with OTEL_* variables set; "
                                 "unset: on when the standard OTEL_* variables ask for an exporter")
    endpoint: str | None = Field(None, description="OTLP collector base URL (default: OTEL_EXPORTER_OTLP_ENDPOINT, "
                                 "else http://localhost:4318)")
    protocol: Protocol | None = Field(None, description="http/protobuf (default) or grpc (needs the grpc exporter)")
    headers: dict[str, str] = Field(default_factory=dict, description="sent with every export (e.g. an API key)")
    timeout: float = Field(5.0, gt=0, le=60, description="seconds one export, and the flush at exit, may take")


@dataclass(frozen=True)
class TelemetryPlan:
    """What to start: the exporter of each signal and where OTLP goes (None: the SDK's env default)."""

    traces: Exporter
    metrics: Exporter
    protocol: Protocol
    endpoint: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = 5.0


def _exporter(value: str | None) -> Exporter:
    value = (value or "otlp").strip().lower().split(",")[0].strip()
    return value if value in ("console", "none") else "otlp"  # type: ignore[return-value]


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def plan_telemetry(config: TelemetryConfig, env: Mapping[str, str]) -> TelemetryPlan | None:
    """The telemetry to start, or None when it is off (THE rule, above)."""
    if _truthy(env.get("OTEL_SDK_DISABLED")) or config.enabled is False:
        return None
    traces, metrics = env.get("OTEL_TRACES_EXPORTER"), env.get("OTEL_METRICS_EXPORTER")
    if config.enabled is None:
        asked = any(v and _exporter(v) != "none" for v in (traces, metrics))
        if not (asked or any(env.get(var) for var in ENDPOINT_VARS)):
            return None
    plan = TelemetryPlan(traces=_exporter(traces), metrics=_exporter(metrics),
                         protocol=config.protocol or _protocol(env), endpoint=config.endpoint,
                         headers=dict(config.headers), timeout=config.timeout)
    return plan if (plan.traces, plan.metrics) != ("none", "none") else None


def _protocol(env: Mapping[str, str]) -> Protocol:
    value = (env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL") or "").strip()
    return "grpc" if value == "grpc" else "http/protobuf"
