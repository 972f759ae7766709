"""OpenTelemetry for axon: off by default; on through the standard ``OTEL_*`` variables or the
``[telemetry]`` table (the rule: ``settings.py``).

A frontend calls ``start_telemetry`` once per process, subscribes the returned sink to each
runtime's event bus and calls its ``close`` on the way out (any exit: it flushes with a short,
bounded timeout). ``axon acp``, which serves several sessions at once, subscribes one
``session_sink`` per session instead (a span tree each, on the same providers). The core never imports this package: telemetry is one more consumer of the
events. With telemetry off, nothing of OpenTelemetry is imported (start-up stays fast).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Protocol

from axon_cli.kernel.events import Event
from axon_cli.settings.telemetry_config import INSTALL_HINT, TelemetryConfig, plan_telemetry

__all__ = ["TelemetrySink", "EventRecorder", "start_telemetry", "TelemetryConfig"]


class EventRecorder(Protocol):
    def __call__(self, event: Event) -> None: ...

    def close(self) -> None: ...


class TelemetrySink(EventRecorder, Protocol):
    def session_sink(self, root_name: str) -> EventRecorder: ...


def start_telemetry(config: TelemetryConfig, root_name: str, version: str, warn: Callable[[str], None],
                    env: Mapping[str, str] | None = None) -> TelemetrySink | None:
    """The running telemetry (``root_name``: "axon.run" or "axon.session"; ``version``: axon's, the
    service version), or None when it is off or the SDK is not installed (then ``warn`` gets one line
    saying how to install it)."""
    plan = plan_telemetry(config, os.environ if env is None else env)
    if plan is None:
        return None
    try:
        from axon_cli.app.telemetry.otel_setup import start
    except ImportError:
        warn(f"telemetry is enabled but OpenTelemetry is not installed ({INSTALL_HINT}); running without it")
        return None
    try:
        return start(plan, root_name, version, warn)
    except Exception as e:  # a bad endpoint or header value: the run goes on without telemetry
        warn(f"telemetry could not start ({type(e).__name__}: {e}); running without it")
        return None
