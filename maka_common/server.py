"""The process shell around a service: gRPC server, health, reflection, signals, shutdown.

A service plugs in through :class:`Service`. Life of a process::

    open()            take the data directory, open stores (a failure exits 1, one line)
    register()        add servicers to the gRPC server
    bind + start      log "<name> listening on HOST:PORT"; health SERVING
    ... serve ...
    shutdown          Shutdown RPC, SIGTERM or SIGINT: health NOT_SERVING, drain(grace),
                      stop the server (in-flight calls get a short grace), close(); exit 0

``ServerHost.shutdown()`` is single-flight: every caller (the RPC, each signal) awaits the same
drain and gets the same report. A second SIGINT/SIGTERM while draining stops at once.
Interceptors passed to :func:`serve` are the hook for authentication at the servicer
boundary; they run after the request guard (:mod:`maka_common.request_guard`: size limits and
decoding with ``ErrorInfo``). Every connection follows the keepalive policy shared with the
clients (:mod:`maka_client.keepalive`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import time
from collections.abc import Sequence
from typing import Any, Protocol

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from maka_client.keepalive import KEEPALIVE, KeepalivePolicy

from maka_common.aio import race
from maka_common.config import CommonConfig
from maka_common.reflection import enable_reflection
from maka_common.request_guard import RequestGuard, RequestLimits

log = logging.getLogger("maka.server")

HEALTH_SERVICE_NAME = "grpc.health.v1.Health"

# In-flight calls get this long after a drain before the server cancels them.
_STOP_GRACE_SECONDS = 2.0


class StartupError(Exception):
    """The service cannot start; the message is printed as the one line on stderr."""


class Service(Protocol):
    """What a service provides to the shell."""

    @property
    def service_names(self) -> Sequence[str]:
        """Fully qualified gRPC service names (for health and reflection)."""

    async def open(self, host: ServerHost) -> None:
        """Acquire resources (data directory, stores). Raise StartupError to exit cleanly."""

    def register(self, server: grpc.aio.Server) -> None:
        """Add servicers to *server*."""

    async def drain(self, grace: float) -> Any:
        """Stop admitting work; finish or stop what runs within *grace*; return a report."""

    async def close(self) -> None:
        """Release everything; called once, after the server stopped."""


class ServerHost:
    """Lifecycle facts and controls a service may use (shutdown, health, address)."""

    def __init__(self, config: CommonConfig, service: Service) -> None:
        self.config = config
        self.service = service
        self.name = f"maka-{config.service}"
        self.listen_address = config.listen
        self.started_at = time.time()
        self.health = health.aio.HealthServicer()
        self._shutdown_task: asyncio.Task[Any] | None = None
        self._stop_now = asyncio.Event()
        self._drained = asyncio.Event()

    @property
    def draining(self) -> bool:
        return self._shutdown_task is not None

    async def set_serving(self, serving: bool) -> None:
        status = (
            health_pb2.HealthCheckResponse.SERVING
            if serving
            else health_pb2.HealthCheckResponse.NOT_SERVING
        )
        for name in ("", *self.service.service_names):
            await self.health.set(name, status)

    def shutdown(self, reason: str = "requested") -> asyncio.Task[Any]:
        """Begin (once) the graceful shutdown; the task's result is the service's drain report."""
        if self._shutdown_task is None:
            log.info("%s shutting down (%s)", self.name, reason)
            self._shutdown_task = asyncio.get_running_loop().create_task(self._drain())
        return self._shutdown_task

    def stop_now(self) -> None:
        """Skip the remaining grace period (second signal)."""
        self._stop_now.set()

    async def _drain(self) -> Any:
        try:
            await self.set_serving(False)
            return await self.service.drain(self.config.shutdown_grace)
        finally:
            self._drained.set()

    async def wait_drained(self) -> None:
        await race(self._drained.wait(), self._stop_now.wait())


async def serve(
    config: CommonConfig,
    service: Service,
    *,
    interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
    handle_signals: bool = True,
    keepalive: KeepalivePolicy = KEEPALIVE,
) -> int:
    """Run *service* until shut down; return the process exit code.

    With ``handle_signals=False`` no SIGTERM/SIGINT handlers are installed (they are
    process-wide): for hosting a server inside another program, such as a test, that ends it
    through :meth:`ServerHost.shutdown` instead. *keepalive* is the ping policy shared with the
    clients (:mod:`maka_client.keepalive`); tests shrink its intervals.
    """
    host = ServerHost(config, service)
    try:
        await service.open(host)
    except StartupError as error:
        sys.stderr.write(f"{host.name}: error: {error}\n")
        return 1
    limits = RequestLimits(config.max_request_bytes, config.max_transport_bytes)
    server = grpc.aio.server(
        # The guard first: a request too large or undecodable is refused before anything else.
        interceptors=(RequestGuard(limits, domain=f"{config.service}.maka"), *interceptors),
        options=[*server_options(keepalive), *limits.server_options()],
    )
    try:
        service.register(server)
        health_pb2_grpc.add_HealthServicer_to_server(host.health, server)
        enable_reflection(server, (*service.service_names, HEALTH_SERVICE_NAME))
        cause: Exception | None = None
        try:
            port = server.add_insecure_port(config.listen)
        except RuntimeError as error:
            port, cause = 0, error
        if port == 0:
            sys.stderr.write(f"{host.name}: error: cannot listen on {config.listen}: {cause}\n")
            return 1
        bound_host = config.listen.rpartition(":")[0]
        host.listen_address = f"{bound_host}:{port}"
        loop = asyncio.get_running_loop()

        def on_signal(signum: int) -> None:
            if host.draining:
                log.warning("%s: second %s, stopping now", host.name, signal.Signals(signum).name)
                host.stop_now()
            else:
                host.shutdown(signal.Signals(signum).name)

        # Handlers go in before the "listening" line: whoever reads it may signal at once.
        if handle_signals:
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(signum, on_signal, signum)
        await server.start()
        await host.set_serving(True)
        log.info(
            "%s listening on %s (data dir %s, pid %d)",
            host.name,
            host.listen_address,
            config.service_data_dir,
            os.getpid(),
        )
        await host.wait_drained()
        task = host.shutdown()
        if task.done() and task.exception() is not None:
            log.error("%s: drain failed: %r", host.name, task.exception())
        grace = 0.0 if host._stop_now.is_set() else _STOP_GRACE_SECONDS
        await server.stop(grace)
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        log.info("%s stopped", host.name)
        return 0
    finally:
        await server.stop(None)
        await service.close()


def server_options(keepalive: KeepalivePolicy = KEEPALIVE) -> list[tuple[str, Any]]:
    """The gRPC server arguments of every service: no port sharing, the keepalive policy."""
    return [("grpc.so_reuseport", 0), *keepalive.server_options()]


def configure_logging(level: str) -> None:
    logging.basicConfig(
        level=level.upper(),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


def run_main(config: CommonConfig, service: Service) -> int:
    """Entry-point helper: logging, event loop, exit code."""
    configure_logging(config.log_level)
    return asyncio.run(serve(config, service))
