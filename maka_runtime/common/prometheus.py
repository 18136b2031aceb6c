"""The Prometheus figures of a service with ``--metrics-listen``: gRPC calls, store commits,
drains, and the domain's gauges, and the ``/metrics`` endpoint that serves them.

Loaded only when ``--metrics-listen`` is given (:func:`maka_runtime.common.metrics.open_metrics`):
without it nothing could read the figures, so none are kept, and ``prometheus_client`` (with the
HTTP server it brings) is never imported. Each :class:`~maka_runtime.common.server.ServerHost`
owns one :class:`ServiceMetrics` (its own ``CollectorRegistry``, so two services hosted in one
process never mix their figures); ``/metrics`` is plain HTTP on the flag's address (loopback
unless the flag names a host; a non-loopback host is refused like a plaintext gRPC listener,
unless ``--allow-insecure-listen``).

**gRPC calls.** A :class:`Recorder` per method is the first step of every call's pipeline
(:mod:`maka_runtime.common.pipeline`), so a call that authentication or the request guard
refuses is counted with its code too. It is written here because the libraries made for this
(``py-grpc-prometheus`` and its forks) implement only the synchronous
``grpc.ServerInterceptor``; these servers are ``grpc.aio``, and their calls go through one
pipeline, not interceptors. Only methods the server has registered get a recorder, so the
``method`` label is bounded by the protos.

**Labels carry no secret and no id**: service and method names, status codes, states, store
names. Session, turn and run ids, paths and principals never become labels.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from maka_runtime.common import sqlite
from maka_runtime.common.metrics import Metrics, StateCounts, status_name

__all__ = ["MetricsServer", "Recorder", "ServiceMetrics"]

#: Buckets of call and commit latencies, in seconds (1 ms to 30 s).
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
#: Buckets of drain and stop durations, in seconds.
DRAIN_BUCKETS = (0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120)


class _StateGauge(Collector):
    """A gauge family whose values callbacks give at scrape time (live runs by state)."""

    def __init__(self, name: str, documentation: str) -> None:
        self.name, self.documentation = name, documentation
        self.sources: list[StateCounts] = []

    def collect(self) -> Iterable[GaugeMetricFamily]:
        family = GaugeMetricFamily(self.name, self.documentation, labels=["kind", "state"])
        totals: dict[tuple[str, str], int] = {}
        for source in list(self.sources):
            for key, count in source().items():
                totals[key] = totals.get(key, 0) + count
        for (kind, state), count in sorted(totals.items()):
            family.add_metric([kind, state], count)
        yield family


class ServiceMetrics(Metrics):
    """The metrics of one service (see the module docstring and the README's Operations)."""

    enabled = True

    def __init__(self, service: str, data_dir: Path | None = None) -> None:
        self.service = service
        self.registry = CollectorRegistry()
        self._data_dir = data_dir
        registry = self.registry
        self.grpc_handled = Counter(
            "maka_grpc_server_handled",
            "gRPC calls finished, by service, method and status code",
            ["grpc_service", "grpc_method", "grpc_code"],
            registry=registry,
        )
        self.grpc_seconds = Histogram(
            "maka_grpc_server_handling_seconds",
            "Time from a call's start to its status, by service and method",
            ["grpc_service", "grpc_method"],
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.commit_seconds = Histogram(
            "maka_store_commit_seconds",
            "Time of one SQLite write transaction (BEGIN IMMEDIATE to COMMIT), by store",
            ["store"],
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.drain_seconds = Histogram(
            "maka_drain_seconds",
            "Time of the service's graceful drain at shutdown",
            buckets=DRAIN_BUCKETS,
            registry=registry,
        )
        self.stop_seconds = Histogram(
            "maka_stop_seconds",
            "Time from a stopped run's termination to its final record, by kind (run)",
            ["kind"],
            buckets=DRAIN_BUCKETS,
            registry=registry,
        )
        self.finished = Counter(
            "maka_finished",
            "Turns and runs that reached a final state, by kind and state",
            ["kind", "state"],
            registry=registry,
        )
        self.live = _StateGauge("maka_live", "Turns and runs not yet final, by kind and state")
        registry.register(self.live)
        self.ptys = Gauge("maka_ptys_live", "PTY runs whose terminal is open", registry=registry)
        self._observing: Callable[[], None] | None = None
        self._recorders: dict[str, Recorder] = {}

    def recorder(self, path: str) -> Recorder:
        """What counts and times the calls of method *path* (``/package.Service/Method``)."""
        recorder = self._recorders.get(path)
        if recorder is None:
            service, _, method = path.lstrip("/").rpartition("/")
            recorder = self._recorders[path] = Recorder(self, service, method)
        return recorder

    def observe_stores(self) -> None:
        """Time the commits of this service's SQLite stores (those under its data directory)."""
        if self._observing is None:
            self._observing = sqlite.add_commit_observer(self._commit)

    def stop_observing(self) -> None:
        if self._observing is not None:
            self._observing()
            self._observing = None

    def _commit(self, store: str, path: Path, seconds: float) -> None:
        if self._data_dir is None or path.is_relative_to(self._data_dir):
            self.commit_seconds.labels(store).observe(seconds)

    def add_live(self, source: StateCounts) -> None:
        """Report live items by kind and state from *source* at every scrape."""
        self.live.sources.append(source)

    def count_finished(self, kind: str, state: str, stop_seconds: float | None = None) -> None:
        """A turn or run reached final *state*; *stop_seconds* since its stop, if stopped."""
        self.finished.labels(kind, state).inc()
        if stop_seconds is not None:
            self.stop_seconds.labels(kind).observe(stop_seconds)

    def turn_final(self, state: str) -> None:
        self.count_finished("turn", state)

    def observe_drain(self, seconds: float) -> None:
        self.drain_seconds.observe(seconds)

    def set_live_ptys(self, source: Callable[[], int]) -> None:
        self.ptys.set_function(source)


class Recorder:
    """One method's series: its histogram and, by status code, its counters."""

    def __init__(self, metrics: ServiceMetrics, service: str, method: str) -> None:
        self.handled = metrics.grpc_handled
        self.seconds = metrics.grpc_seconds.labels(service, method)
        self.service, self.method = service, method
        self.by_code: dict[str, Any] = {}

    def __call__(self, context: Any, started: float, error: BaseException | None) -> None:
        self.seconds.observe(time.perf_counter() - started)
        code = status_name(context, error)
        counter = self.by_code.get(code)
        if counter is None:
            counter = self.by_code[code] = self.handled.labels(self.service, self.method, code)
        counter.inc()


class MetricsServer:
    """``/metrics`` over HTTP on *address* (``HOST:PORT``; port 0 picks one), in a thread."""

    def __init__(self, metrics: ServiceMetrics, address: str) -> None:
        host, _, port = address.rpartition(":")
        self._httpd: WSGIServer
        self._thread: threading.Thread
        self._httpd, self._thread = start_http_server(
            int(port), addr=host.strip("[]"), registry=metrics.registry
        )
        bound = self._httpd.server_address[1]
        self.address = f"{host}:{bound}"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
