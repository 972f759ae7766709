"""THE rule that turns telemetry on: OTEL_SDK_DISABLED, the [telemetry] table, the standard variables."""

from __future__ import annotations

import pytest

from axon_cli.settings.telemetry_config import TelemetryConfig, plan_telemetry

UNSET = TelemetryConfig()
ON = TelemetryConfig(enabled=True)
OFF = TelemetryConfig(enabled=False)


@pytest.mark.parametrize(("config", "env", "on"), [
    (UNSET, {}, False),
    (UNSET, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, True),
    (UNSET, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, True),
    (UNSET, {"OTEL_TRACES_EXPORTER": "otlp"}, True),
    (UNSET, {"OTEL_METRICS_EXPORTER": "console"}, True),
    (UNSET, {"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"}, False),
    (UNSET, {"OTEL_SERVICE_NAME": "x", "OTEL_RESOURCE_ATTRIBUTES": "a=b"}, False),   # no exporter asked for
    (UNSET, {"OTEL_EXPORTER_OTLP_ENDPOINT": ""}, False),
    (ON, {}, True),
    (OFF, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, False),
    (ON, {"OTEL_SDK_DISABLED": "true"}, False),
    (UNSET, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "TRUE"}, False),
    (ON, {"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"}, False),
])
def test_when_telemetry_is_on(config, env, on):
    assert (plan_telemetry(config, env) is not None) is on


def test_each_signal_follows_its_exporter_variable():
    plan = plan_telemetry(ON, {"OTEL_TRACES_EXPORTER": "console", "OTEL_METRICS_EXPORTER": "none"})
    assert plan is not None and (plan.traces, plan.metrics) == ("console", "none")
    plan = plan_telemetry(ON, {"OTEL_TRACES_EXPORTER": "zipkin"})     # not one axon has: OTLP
    assert plan is not None and (plan.traces, plan.metrics) == ("otlp", "otlp")


def test_the_table_wins_over_the_variables_for_where_and_how():
    config = TelemetryConfig(enabled=True, endpoint="http://mine:4318", protocol="http/protobuf",
                             headers={"x-key": "v"}, timeout=2)
    plan = plan_telemetry(config, {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})
    assert plan is not None
    assert (plan.endpoint, plan.protocol, plan.headers, plan.timeout) == ("http://mine:4318", "http/protobuf",
                                                                           {"x-key": "v"}, 2)
    plan = plan_telemetry(ON, {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})
    assert plan is not None and plan.protocol == "grpc" and plan.endpoint is None   # the SDK reads the env


def test_a_bad_table_is_refused():
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        TelemetryConfig.model_validate({"enabled": True, "protocol": "carrier-pigeon"})
    with pytest.raises(ValidationError):
        TelemetryConfig.model_validate({"endpoit": "http://typo"})
