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
Every method's calls go through one pipeline, composed when the server registers the method
(:mod:`maka_runtime.common.pipeline`): counted and timed (:mod:`maka_runtime.common.metrics`,
served with ``--metrics-listen``), authenticated (:mod:`maka_runtime.common.auth`: a bearer
token or a client certificate; every call but health's; a call without one is refused before
its request is decoded), checked by the request guard (:mod:`maka_runtime.common.request_guard`:
size limits and decoding with ``ErrorInfo``), then given its principal and the log ids of its
request (:mod:`maka_runtime.common.logs`). Tracing (``--otel``) and interceptors passed to
:func:`serve` run outside the pipeline, before it. A plaintext listener on a non-loopback
address is refused (exit 2) unless ``--allow-insecure-listen``; the bound address and the auth
mode are logged once at start. Every connection follows the keepalive policy shared with the
clients (:mod:`maka_runtime_client.keepalive`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ipaddress
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from maka_runtime_client.keepalive import KEEPALIVE, KeepalivePolicy

from maka_runtime.common import codecache, observability
from maka_runtime.common.aio import race
from maka_runtime.common.auth import Authenticator, Gate, TokenFileError
from maka_runtime.common.config import CommonConfig
from maka_runtime.common.logs import configure_logging
from maka_runtime.common.metrics import Metrics, open_metrics
from maka_runtime.common.pipeline import CallPipeline, Registrar
from maka_runtime.common.reflection import enable_reflection
from maka_runtime.common.request_guard import RequestLimits

log = logging.getLogger("maka.server")

HEALTH_SERVICE_NAME = "grpc.health.v1.Health"

# In-flight calls get this long after a drain before the server cancels them.
_STOP_GRACE_SECONDS = 2.0


@functools.cache
def package_version() -> str:
    """The installed distribution's version, read once (a metadata lookup scans the path: about
    1.4 ms, which was most of a GetServerInfo call; ``importlib.metadata`` itself is loaded
    here, with the first call, not at start)."""
    from importlib import metadata

    try:
        return metadata.version("maka-runtime")
    except metadata.PackageNotFoundError:  # running from a plain checkout
        return "0+unknown"


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
        #: How callers are authenticated (reported by GetServerInfo), see :func:`auth_mode`.
        self.auth_mode = auth_mode(config)
        self.authenticator = Authenticator(config.data_dir, config.token_file)
        self.started_at = time.time()
        self.health = health.aio.HealthServicer()
        self._shutdown_task: asyncio.Task[Any] | None = None
        self._stop_now = asyncio.Event()
        self._drained = asyncio.Event()
        #: Prometheus figures with --metrics-listen (services add theirs), else none kept.
        self.metrics: Metrics = open_metrics(
            config.service, config.service_data_dir, served=config.metrics_listen is not None
        )
        #: Where /metrics is served once started (None: not served).
        self.metrics_address: str | None = None
        self.metrics_server: Any = None
        #: The OpenTelemetry tracer provider with --otel (None: no tracing).
        self.tracer_provider: Any = None

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

    @property
    def stopping_now(self) -> bool:
        """A second signal asked to skip the rest of the grace period."""
        return self._stop_now.is_set()

    def stop_now(self) -> None:
        """Skip the remaining grace period (second signal)."""
        self._stop_now.set()

    async def _drain(self) -> Any:
        started = time.perf_counter()
        try:
            await self.set_serving(False)
            return await self.service.drain(self.config.shutdown_grace)
        finally:
            self.metrics.observe_drain(time.perf_counter() - started)
            self._drained.set()

    async def wait_drained(self) -> None:
        await race(self._drained.wait(), self._stop_now.wait())


async def serve(
    config: CommonConfig,
    service: Service,
    *,
    interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
    handle_signals: bool = True,
    keepalive: KeepalivePolicy | None = None,
) -> int:
    """Run *service* until shut down; return the process exit code.

    With ``handle_signals=False`` no SIGTERM/SIGINT handlers are installed (they are
    process-wide): for hosting a server inside another program, such as a test, that ends it
    through :meth:`ServerHost.shutdown` instead. *keepalive* is the ping policy shared with the
    clients (:mod:`maka_runtime_client.keepalive`), by default the service's ``keepalive`` if it has
    one (the resource service accepts the kernel link's faster pings), else ``KEEPALIVE``.
    """
    host = ServerHost(config, service)
    refused = _refuse_insecure(host)
    if refused is not None:
        return refused
    try:
        ensure_private_dir(config.data_dir)
        host.authenticator.open()
        credentials = server_credentials(config)
        host.tracer_provider = observability.tracer(config)
    except (OSError, TokenFileError, observability.TracingError) as error:
        return _startup_failed(host, error)
    try:
        await service.open(host)
    except StartupError as error:
        return _startup_failed(host, error)
    server, pipeline = _grpc_server(host, interceptors, keepalive)
    try:
        _register(server, host, pipeline)
        if not _bind(server, host, credentials) or not observability.start_metrics(host):
            return 1
        # Handlers go in before the "listening" line: whoever reads it may signal at once.
        if handle_signals:
            _install_signal_handlers(host)
        await server.start()
        await host.set_serving(True)
        _log_listening(host, config)
        await _serve_until_drained(server, host)
        return 0
    finally:
        await server.stop(None)
        await service.close()
        observability.stop_metrics(host)


def _log_listening(host: ServerHost, config: CommonConfig) -> None:
    log.info(
        "%s listening on %s (auth %s, data dir %s, pid %d)",
        *(host.name, host.listen_address, host.auth_mode, config.service_data_dir),
        os.getpid(),
    )


def _startup_failed(host: ServerHost, error: Exception) -> int:
    """The one line on stderr, and exit code 1."""
    sys.stderr.write(f"{host.name}: error: {error}\n")
    return 1


def _refuse_insecure(host: ServerHost) -> int | None:
    """Exit code 2 for a plaintext listener (gRPC or metrics) beyond loopback, unless it is
    allowed (a warning)."""
    insecure = insecure_listen(host.config) or observability.insecure_metrics(host.config)
    if insecure is None:
        return None
    if not host.config.allow_insecure_listen:
        sys.stderr.write(f"{host.name}: error: {insecure}\n")
        return 2
    log.warning("%s: %s, allowed by --allow-insecure-listen", host.name, insecure)
    return None


def _grpc_server(
    host: ServerHost,
    interceptors: Sequence[grpc.aio.ServerInterceptor],
    keepalive: KeepalivePolicy | None,
) -> tuple[grpc.aio.Server, CallPipeline]:
    config = host.config
    if keepalive is None:
        keepalive = getattr(host.service, "keepalive", KEEPALIVE)
    limits = RequestLimits(config.max_request_bytes, config.max_transport_bytes)
    domain = f"{config.service}.maka"
    # Every method's calls go through one pipeline, composed when the method is registered:
    # metrics, then authentication (on metadata only: an anonymous call is refused before its
    # request is decoded), then the request guard, then the call's principal and log ids
    # (maka_runtime.common.pipeline). Tracing, when asked for, stays an interceptor, outermost,
    # so refused calls are traced too.
    gate = Gate(host.authenticator, domain, mtls=config.tls_client_ca is not None)
    pipeline = CallPipeline(host.metrics, gate, limits, domain)
    server = grpc.aio.server(
        interceptors=(*observability.server_interceptors(host), *interceptors) or None,
        options=[*server_options(keepalive), *limits.server_options()],
    )
    return server, pipeline


def _register(server: grpc.aio.Server, host: ServerHost, pipeline: CallPipeline) -> None:
    """The service's servicers, health and reflection, each method behind *pipeline*."""
    registrar: Any = Registrar(server, pipeline)
    host.service.register(registrar)
    health_pb2_grpc.add_HealthServicer_to_server(host.health, registrar)
    enable_reflection(registrar, (*host.service.service_names, HEALTH_SERVICE_NAME))


def _bind(server: grpc.aio.Server, host: ServerHost, credentials: Any) -> bool:
    """Bind the listener (TLS when *credentials*); False (and the one line) if it cannot."""
    listen = host.config.listen
    cause: Exception | None = None
    try:
        if credentials is None:
            port = server.add_insecure_port(listen)
        else:
            port = server.add_secure_port(listen, credentials)
    except RuntimeError as error:
        port, cause = 0, error
    if port == 0:
        sys.stderr.write(f"{host.name}: error: cannot listen on {listen}: {cause}\n")
        return False
    host.listen_address = f"{listen.rpartition(':')[0]}:{port}"
    return True


def _install_signal_handlers(host: ServerHost) -> None:
    def on_signal(signum: int) -> None:
        if host.draining:
            log.warning("%s: second %s, stopping now", host.name, signal.Signals(signum).name)
            host.stop_now()
        else:
            host.shutdown(signal.Signals(signum).name)

    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, on_signal, signum)
    loop.add_signal_handler(signal.SIGHUP, host.authenticator.reload)


async def _serve_until_drained(server: grpc.aio.Server, host: ServerHost) -> None:
    """Serve until the drain is done (or skipped), then stop the server and finish."""
    await host.wait_drained()
    task = host.shutdown()
    if task.done() and task.exception() is not None:
        log.error("%s: drain failed: %r", host.name, task.exception())
    await server.stop(0.0 if host.stopping_now else _STOP_GRACE_SECONDS)
    if not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
    log.info("%s stopped", host.name)


def is_loopback(host: str) -> bool:
    """True for an address only this machine can reach (``localhost``, 127.0.0.0/8, ``::1``)."""
    name = host.strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def insecure_listen(config: CommonConfig) -> str | None:
    """Why listening on ``config.listen`` would be unsafe (plaintext beyond loopback), or None."""
    host = config.listen.rpartition(":")[0]
    if config.tls_cert is not None or is_loopback(host):
        return None
    return (
        f"refusing to listen on {config.listen} without TLS: a non-loopback address needs "
        "--tls-cert/--tls-key (or --allow-insecure-listen)"
    )


def auth_mode(config: CommonConfig) -> str:
    """``token``, ``tls+token`` or ``mtls+token``; ``,insecure-listen`` when overridden."""
    if config.tls_client_ca is not None:
        mode = "mtls+token"
    elif config.tls_cert is not None:
        mode = "tls+token"
    else:
        mode = "token"
    return f"{mode},insecure-listen" if insecure_listen(config) is not None else mode


def server_credentials(config: CommonConfig) -> grpc.ServerCredentials | None:
    """TLS credentials of the listener (None: plaintext)."""
    if config.tls_cert is None or config.tls_key is None:
        return None
    chain = config.tls_cert.read_bytes()
    key = config.tls_key.read_bytes()
    client_ca = config.tls_client_ca.read_bytes() if config.tls_client_ca else None
    return grpc.ssl_server_credentials(
        [(key, chain)], root_certificates=client_ca, require_client_auth=client_ca is not None
    )


def ensure_private_dir(path: Path) -> None:
    """Create *path* 0700 if missing (an existing shared data directory keeps its mode; what
    the services keep inside it is made private by each)."""
    if not path.exists():
        path.mkdir(parents=True, mode=0o700)


def server_options(keepalive: KeepalivePolicy = KEEPALIVE) -> list[tuple[str, Any]]:
    """The gRPC server arguments of every service: no port sharing, the keepalive policy."""
    return [("grpc.so_reuseport", 0), *keepalive.server_options()]


def run_main(
    config: CommonConfig,
    service: Service,
    *,
    loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None,
) -> int:
    """Entry-point helper: logging, event loop (asyncio's, or *loop_factory*'s), exit code."""
    configure_logging(config.log_level, config.log_format)
    # Every module is imported by now: keep their dataclasses' code for the next start.
    codecache.save()
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        return runner.run(serve(config, service))
