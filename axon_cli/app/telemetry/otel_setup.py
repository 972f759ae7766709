"""Starting and stopping the OpenTelemetry SDK for one axon process (imported only when telemetry is on).

Providers are axon's own (never the global ones), so nothing else in the process reports through
them. Exports run in the SDK's background threads with a bounded timeout, and the flush at exit runs
in a daemon thread that axon waits for at most ``timeout`` seconds: an unreachable collector never
blocks or breaks a run. The SDK's own log lines about failed exports are silenced for the same
reason (a run's stderr is the user's).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import ConsoleMetricExporter, PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

from axon_cli.app.telemetry.spans import SpanRecorder
from axon_cli.kernel.events import Event
from axon_cli.settings.telemetry_config import TelemetryPlan

__all__ = ["Telemetry", "start"]


class Telemetry:
    """The running SDK: an event sink (subscribe it to each runtime's bus) and ``close`` (flush, at most
    ``timeout`` seconds)."""

    def __init__(self, recorder: SpanRecorder, providers: list[Any], timeout: float) -> None:
        self.recorder = recorder
        self.providers = providers
        self.timeout = timeout
        self._closed = False

    def __call__(self, event: Event) -> None:
        self.recorder(event)

    def session_sink(self, root_name: str) -> SpanRecorder:
        """One more recorder on the same providers, for a process that serves several sessions at once
        (``axon acp``): each session's spans make their own tree; close it when the session ends."""
        return SpanRecorder(self.recorder.tracer, self.recorder.meter, root_name, self.recorder.version,
                            self.recorder.capture)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.recorder.close()
        flusher = threading.Thread(target=self._shutdown, daemon=True, name="axon-telemetry-flush")
        flusher.start()
        flusher.join(self.timeout + 1.0)

    def _shutdown(self) -> None:
        for provider in self.providers:
            with contextlib.suppress(Exception):   # a failing exporter must not fail the exit
                provider.shutdown()


def _resource(env: dict[str, str], version: str) -> Resource:
    attributes = {"service.version": version}
    named = env.get("OTEL_SERVICE_NAME") or "service.name=" in env.get("OTEL_RESOURCE_ATTRIBUTES", "")
    if not named:
        attributes["service.name"] = "axon"
    return Resource.create(attributes)   # adds OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME


def _otlp(plan: TelemetryPlan, signal: str, warn: Callable[[str], None]) -> Any:
    """The OTLP exporter of ``signal`` ("traces" or "metrics"), or None (grpc asked, not installed)."""
    options: dict[str, Any] = {"timeout": plan.timeout}
    if plan.headers:
        options["headers"] = dict(plan.headers)
    transport = "grpc" if plan.protocol == "grpc" else "http"
    module_name = f"opentelemetry.exporter.otlp.proto.{transport}.{'trace' if signal == 'traces' else 'metric'}_exporter"
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        warn(f"telemetry: OTLP over {plan.protocol} needs pip install "
             f"opentelemetry-exporter-otlp-proto-{transport}; nothing is exported over OTLP")
        return None
    exporter = getattr(module, "OTLPSpanExporter" if signal == "traces" else "OTLPMetricExporter")
    if transport == "grpc":
        return exporter(endpoint=plan.endpoint, **options) if plan.endpoint else exporter(**options)
    if plan.endpoint:
        options["endpoint"] = plan.endpoint.rstrip("/") + f"/v1/{signal}"
    return exporter(**options)


def start(plan: TelemetryPlan, root_name: str, version: str, warn: Callable[[str], None]) -> Telemetry:
    """Providers and exporters for ``plan``, and the recorder of this process's spans."""
    logging.getLogger("opentelemetry").setLevel(logging.CRITICAL)
    said: set[str] = set()

    def warn_once(line: str) -> None:       # grpc missing: one line, not one per signal
        if line not in said:
            said.add(line)
            warn(line)
    resource = _resource(dict(os.environ), version)
    tracer_provider = TracerProvider(resource=resource, shutdown_on_exit=False)
    span_exporter = ConsoleSpanExporter(out=sys.stderr) if plan.traces == "console" else (
        _otlp(plan, "traces", warn_once) if plan.traces == "otlp" else None)
    if span_exporter is not None:
        tracer_provider.add_span_processor(BatchSpanProcessor(span_exporter, export_timeout_millis=int(plan.timeout * 1000)))
    readers = []
    metric_exporter = ConsoleMetricExporter(out=sys.stderr) if plan.metrics == "console" else (
        _otlp(plan, "metrics", warn_once) if plan.metrics == "otlp" else None)
    if metric_exporter is not None:
        readers.append(PeriodicExportingMetricReader(metric_exporter,
                                                     export_timeout_millis=plan.timeout * 1000))
    meter_provider = MeterProvider(resource=resource, metric_readers=readers, shutdown_on_exit=False)
    recorder = SpanRecorder(tracer_provider.get_tracer("axon", version),
                            meter_provider.get_meter("axon", version), root_name, version)
    return Telemetry(recorder, [tracer_provider, meter_provider], plan.timeout)
