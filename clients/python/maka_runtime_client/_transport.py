"""Channels, deadlines and the one place where ``grpc.RpcError`` becomes a :class:`MakaError`.

Every public method of the async clients goes through :func:`translated` (unary calls, each step
of a stream), so callers only ever see the typed exceptions of :mod:`maka_runtime_client.errors`.
"""

# `timeout` parameters are gRPC deadlines handed to the call, not asyncio timeouts.
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from maka_runtime_client.credentials import TlsFiles, bearer_interceptors, discover_token
from maka_runtime_client.errors import ClientClosedError, client_error, from_rpc_error
from maka_runtime_client.keepalive import KEEPALIVE, KeepalivePolicy


@dataclass(frozen=True)
class ResumePolicy:
    """How a dropped stream (or an unconfirmed lease control) is retried.

    Attempts count consecutive failures; any event received resets the count. The first retry
    is immediate, later ones back off exponentially from ``initial_backoff`` to ``max_backoff``.
    Each attempt waits at most ``connect_timeout`` seconds for the channel to be ready.
    """

    max_attempts: int = 6
    initial_backoff: float = 0.05
    max_backoff: float = 1.0
    connect_timeout: float = 5.0

    def backoff(self, attempt: int) -> float:
        """Seconds to wait before retry number *attempt* (1 = the first retry)."""
        if attempt <= 1:
            return 0.0
        return float(min(self.max_backoff, self.initial_backoff * 2 ** (attempt - 2)))


@dataclass(frozen=True)
class ClientOptions:
    """Settings shared by the clients.

    ``timeout`` is the deadline in seconds of every unary call (and of each attempt of a lease
    control). ``stream_timeout`` is the deadline of a stream: ``None`` by default, because a
    stream that follows live (a turn waiting for an approval, a watch) has no natural end;
    transport loss is handled by ``resume`` instead.
    """

    timeout: float = 30.0
    stream_timeout: float | None = None
    resume: ResumePolicy = field(default_factory=ResumePolicy)
    #: HTTP/2 keepalive (:mod:`maka_runtime_client.keepalive`): pings that hold an idle connection
    #: up for hours and find a dead one; the servers accept exactly this policy.
    keepalive: KeepalivePolicy = KEEPALIVE
    #: Extra ``grpc`` channel arguments, added after the SDK's own (so they win).
    channel_options: Sequence[tuple[str, Any]] = ()
    #: Sent in ``OpenConnection`` (the resource service logs it).
    client_name: str = "maka-python-sdk"
    #: The bearer token; ``None`` finds one (``MAKA_TOKEN``, then the local credential of
    #: ``data_dir``, see :mod:`maka_runtime_client.credentials`).
    token: str | None = None
    #: Where the local credential is looked for (default ``MAKA_DATA_DIR`` or the default
    #: data directory).
    data_dir: str | None = None
    #: TLS files (CA, client certificate); ``None`` reads ``MAKA_TLS_CA``/``_CERT``/``_KEY``,
    #: and without them the channel is plaintext.
    tls: TlsFiles | None = None


# Reconnect quickly (a resumed stream waits for the channel), but give every connection
# attempt gRPC's own 20 s: `grpc.min_reconnect_backoff_ms` is also gRPC's minimum *connect
# timeout*, so a small value there fails any peer slower to send its SETTINGS frame (a loaded
# machine, a TLS handshake, another host) with "connection attempt timed out".
_CHANNEL_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 20_000),
    ("grpc.max_reconnect_backoff_ms", 2000),
)


def open_channel(
    address: str,
    options: ClientOptions,
    interceptors: Sequence[grpc.aio.ClientInterceptor] | None = None,
) -> grpc.aio.Channel:
    """A channel to *address* (``HOST:PORT``) that carries the client's credential: TLS when
    ``options.tls`` (or the environment) names TLS files, plaintext otherwise."""
    chain = list(interceptors or ())
    tls = options.tls or TlsFiles.from_env()
    # A client certificate is the credential: the local one is not sent along with it.
    local = tls is None or tls.cert is None
    token = discover_token(options.token, data_dir=options.data_dir, local=local)
    if token:
        chain.extend(bearer_interceptors(token))
    channel_options = [
        *_CHANNEL_OPTIONS,
        *options.keepalive.client_options(),
        *options.channel_options,
    ]
    if tls is not None:
        return grpc.aio.secure_channel(
            address, tls.credentials(), options=channel_options, interceptors=chain or None
        )
    return grpc.aio.insecure_channel(address, options=channel_options, interceptors=chain or None)


@contextlib.contextmanager
def translated() -> Iterator[None]:
    """Re-raise a failed call as the matching :class:`MakaError` (``__cause__`` set)."""
    try:
        yield
    except grpc.RpcError as error:
        raise from_rpc_error(error) from error


async def wait_ready(channel: grpc.aio.Channel, timeout: float) -> bool:
    """True once *channel* is connected; False if it is not within *timeout* seconds."""
    try:
        await asyncio.wait_for(channel.channel_ready(), timeout)
    except TimeoutError:
        return False
    return True


class Lifecycle:
    """Open → closed, once; calls on a closed client raise :class:`ClientClosedError`."""

    def __init__(self, name: str) -> None:
        self._name = name
        self.closed = False

    def check(self) -> None:
        if self.closed:
            raise client_error(
                ClientClosedError, f"this {self._name} is closed", grpc.StatusCode.CANCELLED
            )
