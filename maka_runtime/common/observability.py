"""How the process shell (:mod:`maka_runtime.common.server`) switches metrics and tracing on.

``--metrics-listen`` serves ``/metrics`` (:mod:`maka_runtime.common.metrics`) from just after the
gRPC listener binds until the service has closed; a non-loopback metrics host is plaintext HTTP, so
it is refused like a plaintext gRPC listener beyond loopback unless ``--allow-insecure-listen``.
``--otel`` sets up tracing (:mod:`maka_runtime.common.tracing`).
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Any

import grpc

from maka_runtime.common import tracing
from maka_runtime.common.config import CommonConfig
from maka_runtime.common.tracing import TracingError

if TYPE_CHECKING:
    from maka_runtime.common.server import ServerHost

__all__ = ["TracingError", "insecure_metrics", "server_interceptors", "start_metrics"]

log = logging.getLogger("maka.server")


def insecure_metrics(config: CommonConfig) -> str | None:
    """Why serving metrics on ``config.metrics_listen`` is unsafe (beyond loopback), or None."""
    from maka_runtime.common.server import is_loopback

    if config.metrics_listen is None or is_loopback(config.metrics_listen.rpartition(":")[0]):
        return None
    return (
        f"refusing to serve metrics on {config.metrics_listen}: plain HTTP beyond loopback "
        "needs --allow-insecure-listen"
    )


def tracer(config: CommonConfig) -> Any:
    """The tracer provider with ``--otel`` (None without)."""
    return tracing.tracer_provider(config.service) if config.otel else None


def server_interceptors(host: ServerHost) -> list[grpc.aio.ServerInterceptor]:
    if host.tracer_provider is None:
        return []
    return [tracing.server_interceptor(host.tracer_provider)]


def client_interceptors(host: ServerHost) -> list[grpc.aio.ClientInterceptor]:
    """What the service's own outgoing calls go through (tracing, with --otel)."""
    if host.tracer_provider is None:
        return []
    return tracing.client_interceptors(host.tracer_provider)


def start_metrics(host: ServerHost) -> bool:
    """Serve ``/metrics`` when asked; False if it cannot bind (the one line on stderr)."""
    host.metrics.observe_stores()
    address = host.config.metrics_listen
    if address is None:
        return True
    from maka_runtime.common.prometheus import MetricsServer, ServiceMetrics

    assert isinstance(host.metrics, ServiceMetrics)  # kept because they are served
    try:
        server = MetricsServer(host.metrics, address)
    except OSError as error:
        sys.stderr.write(f"{host.name}: error: cannot serve metrics on {address}: {error}\n")
        return False
    host.metrics_server, host.metrics_address = server, server.address
    log.info("%s metrics on http://%s/metrics", host.name, server.address)
    return True


def stop_metrics(host: ServerHost) -> None:
    """Stop serving metrics and timing commits; flush the spans not yet exported."""
    host.metrics.stop_observing()
    if host.metrics_server is not None:
        host.metrics_server.close()
        host.metrics_server = None
    if host.tracer_provider is not None:
        host.tracer_provider.force_flush()
