"""A local OTLP/HTTP collector for the telemetry tests: records every POST (path and body) and
decodes the trace and metric requests with opentelemetry-proto."""

from __future__ import annotations

import gzip
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


@dataclass
class Span:
    name: str
    span_id: bytes
    parent_id: bytes
    trace_id: bytes
    attributes: dict[str, Any]
    status: int
    kind: int = 0                 # SPAN_KIND_INTERNAL 1, SERVER 2, CLIENT 3


@dataclass
class Histogram:
    name: str
    unit: str
    bounds: list[float]
    points: list[tuple[dict[str, Any], int, float]]     # attributes, count, sum


def _value(v: Any) -> Any:
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [_value(x) for x in v.array_value.values]
    return getattr(v, kind) if kind else None


@dataclass
class Collector:
    posts: list[tuple[str, bytes]] = field(default_factory=list)

    def __post_init__(self) -> None:
        posts = self.posts

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                posts.append((self.path, body))
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def bodies(self, path: str) -> list[bytes]:
        return [body for p, body in list(self.posts) if p == path]

    def spans(self) -> list[Span]:
        found = []
        for body in self.bodies("/v1/traces"):
            request = ExportTraceServiceRequest.FromString(body)
            for resource in request.resource_spans:
                for scope in resource.scope_spans:
                    found += [Span(s.name, s.span_id, s.parent_span_id, s.trace_id,
                                   {a.key: _value(a.value) for a in s.attributes}, s.status.code, s.kind)
                              for s in scope.spans]
        return found

    def resources(self) -> list[dict[str, Any]]:
        return [{a.key: _value(a.value) for a in r.resource.attributes}
                for body in self.bodies("/v1/traces") for r in ExportTraceServiceRequest.FromString(body).resource_spans]

    def counters(self) -> dict[str, list[tuple[dict[str, Any], float]]]:
        """Each metric's data points: (attributes, value), from the last metrics export."""
        out: dict[str, list[tuple[dict[str, Any], float]]] = {}
        for body in self.bodies("/v1/metrics")[-1:]:
            for resource in ExportMetricsServiceRequest.FromString(body).resource_metrics:
                for scope in resource.scope_metrics:
                    for metric in scope.metrics:
                        out[metric.name] = [({a.key: _value(a.value) for a in p.attributes},
                                             p.as_int if p.HasField("as_int") else p.as_double)
                                            for p in metric.sum.data_points]
        return out

    def histograms(self) -> dict[str, Histogram]:
        """Each histogram of the last metrics export, with its bucket boundaries and data points."""
        out: dict[str, Histogram] = {}
        for body in self.bodies("/v1/metrics")[-1:]:
            for resource in ExportMetricsServiceRequest.FromString(body).resource_metrics:
                for scope in resource.scope_metrics:
                    for metric in scope.metrics:
                        if metric.WhichOneof("data") != "histogram":
                            continue
                        points = metric.histogram.data_points
                        out[metric.name] = Histogram(
                            metric.name, metric.unit, list(points[0].explicit_bounds) if points else [],
                            [({a.key: _value(a.value) for a in p.attributes}, p.count, p.sum) for p in points])
        return out
