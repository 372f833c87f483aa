"""A small OTLP/HTTP receiver on 127.0.0.1: it takes POST .../v1/traces as protobuf, decodes
each body with OpenTelemetry's own protocol classes, and keeps the spans."""

import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span


@dataclass
class Received:
    url: str
    spans: list[Span] = field(default_factory=list)
    services: set[str] = field(default_factory=set)
    # Each request's path and headers (names in lower case), for backends that take their
    # traces under a prefix (Langfuse's /api/public/otel/v1/traces) and with a key.
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def value(attribute: AnyValue) -> object:
    kind = attribute.WhichOneof("value")
    if kind == "array_value":
        return tuple(value(item) for item in attribute.array_value.values)
    return getattr(attribute, kind) if kind else None


def attributes(span: Span) -> dict[str, object]:
    return {item.key: value(item.value) for item in span.attributes}


@contextmanager
def receiver() -> Iterator[Received]:
    received = Received("")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if not self.path.endswith("/v1/traces"):
                self.send_error(404)
                return
            body = self.rfile.read(int(self.headers["Content-Length"]))
            assert self.headers["Content-Type"] == "application/x-protobuf"
            request = ExportTraceServiceRequest.FromString(body)
            with received.lock:
                received.requests.append(
                    (self.path, {key.lower(): value for key, value in self.headers.items()})
                )
                for resource_spans in request.resource_spans:
                    for item in resource_spans.resource.attributes:
                        if item.key == "service.name":
                            received.services.add(item.value.string_value)
                    for scope_spans in resource_spans.scope_spans:
                        received.spans.extend(scope_spans.spans)
            answer = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    received.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield received
    finally:
        server.shutdown()
        server.server_close()
