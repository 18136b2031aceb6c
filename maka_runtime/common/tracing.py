"""OpenTelemetry tracing, an option (``--otel``; the ``otel`` extra installs the packages).

With ``--otel`` each service traces every gRPC call it serves (the server interceptor of
``opentelemetry-instrumentation-grpc``, outermost, so refused calls are spans too) and the
kernel traces its calls to the resource service (the client interceptors), which carry the
W3C trace context: a turn's spans in the kernel and the resource service's spans of its tool
runs share one trace id.

The tracer provider: one the embedding program has set already (an SDK ``TracerProvider``) is
used as it is; otherwise one is made from the standard environment (``OTEL_SERVICE_NAME``,
default ``maka-<service>``; ``OTEL_RESOURCE_ATTRIBUTES``; ``OTEL_TRACES_EXPORTER``: ``otlp``,
the default, needs ``opentelemetry-exporter-otlp``; ``console`` writes spans to stdout; ``none``
exports nothing) and set as the global one.
"""

from __future__ import annotations

import os
from typing import Any

import grpc

__all__ = ["TracingError", "client_interceptors", "server_interceptor", "tracer_provider"]


class TracingError(Exception):
    """Tracing was asked for but cannot be set up (the message says why)."""


def tracer_provider(service: str) -> Any:
    """The SDK tracer provider the services trace with (see the module docstring)."""
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
    except ImportError as error:
        raise TracingError(
            f"--otel needs the OpenTelemetry packages (pip install 'maka-runtime[otel]'): {error}"
        ) from None
    current = trace.get_tracer_provider()
    if isinstance(current, TracerProvider):
        return current
    name = os.environ.get("OTEL_SERVICE_NAME") or f"maka-{service}"
    provider = TracerProvider(resource=Resource.create({"service.name": name}))
    exporter = _exporter(os.environ.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower())
    if exporter is not None:
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return provider


def _exporter(name: str) -> Any:
    if name in ("", "none"):
        return None
    if name == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        return ConsoleSpanExporter()
    if name == "otlp":
        try:
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (  # type: ignore[import-not-found]
                OTLPSpanExporter,
            )
        except ImportError:
            raise TracingError(
                "OTEL_TRACES_EXPORTER=otlp needs opentelemetry-exporter-otlp "
                "(or set OTEL_TRACES_EXPORTER=console or none)"
            ) from None
        return OTLPSpanExporter()
    raise TracingError(f"OTEL_TRACES_EXPORTER={name!r}: expected otlp, console or none")


def server_interceptor(provider: Any) -> grpc.aio.ServerInterceptor:
    from opentelemetry.instrumentation.grpc import aio_server_interceptor

    interceptor: grpc.aio.ServerInterceptor = aio_server_interceptor(  # type: ignore[no-untyped-call]
        tracer_provider=provider
    )
    return interceptor


def client_interceptors(provider: Any) -> list[grpc.aio.ClientInterceptor]:
    from opentelemetry.instrumentation.grpc import aio_client_interceptors

    return list(aio_client_interceptors(tracer_provider=provider))  # type: ignore[no-untyped-call]
