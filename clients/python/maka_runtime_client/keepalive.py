"""The keepalive policy of every Maka Runtime connection, clients and servers: the one place.

A connection may sit idle for hours (an approval waits as long as the user does; a PTY is
attached and nobody types; a tool runs silently). Both sides keep it up and find a dead peer:

- **Clients** ping every ``ping_interval_ms`` (30 s), also with no call open, and drop the
  connection when a ping is not answered within ``ping_timeout_ms`` (20 s); they never stop
  pinging for lack of data.
- **Servers** accept pings as often as every ``min_ping_interval_ms`` (a third of the client's
  interval: 10 s, the shortest interval gRPC-Go lets a client set), with or without calls, and
  send GOAWAY ``too_many_pings`` only after more than ``max_ping_strikes`` pings came sooner
  than that with no data in between — which a client on this policy never does. Servers ping
  their clients too, every ``server_ping_interval_ms`` (2 min), so a client that vanished
  without closing (a killed laptop, a dropped network) is found and its leases and calls end.

gRPC's defaults do not hold an idle connection: a server accepts a ping without data only
every 5 minutes and answers the third early one with GOAWAY, so a client pinging every 30 s
lost its streams after about 150 s. The README's "Keepalive" section documents the values; the
Go (``clients/go/maka``) and Node.js (``clients/node``) clients use the same ones.

The kernel's link to the resource service pings faster (:func:`link_policy`): a frozen
resource service must fail a turn within the kernel's ``--resource-timeout``, so the link pings
every half of it (at most every :data:`LINK_MIN_PING_INTERVAL_MS`) and gives up on a ping after
the other half. The resource service accepts pings at a third of that floor
(:data:`RESOURCE_SERVER`), by the same rule as every server.

``maka_runtime.common.server`` builds the servers' options from :data:`KEEPALIVE` (the resource
service's from :data:`RESOURCE_SERVER`); the SDK's channels (and so the ``maka`` command line)
use :meth:`KeepalivePolicy.client_options`. Tests shrink the intervals with ``ping_interval_ms``;
everything else is derived from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ChannelOptions = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class KeepalivePolicy:
    """HTTP/2 keepalive for clients and servers; intervals in milliseconds."""

    #: A client pings after this long (with or without calls).
    ping_interval_ms: int = 30_000
    #: A ping unanswered this long closes the connection (both sides).
    ping_timeout_ms: int = 20_000
    #: Early pings (sooner than ``min_ping_interval_ms`` after the last, with no data between)
    #: a server tolerates before GOAWAY ``too_many_pings``.
    max_ping_strikes: int = 2
    #: Servers: the shortest ping interval accepted when it must be shorter than a third of
    #: ``ping_interval_ms`` (the resource service accepts the kernel link's faster pings);
    #: 0: a third of ``ping_interval_ms``.
    accept_ping_interval_ms: int = 0

    def __post_init__(self) -> None:
        if self.ping_interval_ms < 3 or self.ping_timeout_ms < 1:
            raise ValueError(f"keepalive intervals too small: {self}")
        if not 0 <= self.accept_ping_interval_ms <= self.ping_interval_ms // 3:
            raise ValueError(f"a server must accept the client's own pings: {self}")

    @property
    def min_ping_interval_ms(self) -> int:
        """The shortest ping interval a server accepts: a third of the client's, so a client
        whose timer fires a little early (or a Go client at its 10 s minimum) is never struck."""
        return self.accept_ping_interval_ms or self.ping_interval_ms // 3

    @property
    def server_ping_interval_ms(self) -> int:
        """How often a server pings each client, to find peers that vanished."""
        return self.ping_interval_ms * 4

    def client_options(self) -> ChannelOptions:
        """gRPC channel arguments for a client channel."""
        return (
            ("grpc.keepalive_time_ms", self.ping_interval_ms),
            ("grpc.keepalive_timeout_ms", self.ping_timeout_ms),
            ("grpc.keepalive_permit_without_calls", 1),
            # Keep pinging however long no data flows (gRPC's default stops after two pings).
            ("grpc.http2.max_pings_without_data", 0),
        )

    def server_options(self) -> ChannelOptions:
        """gRPC server arguments: the ping policy the server enforces and its own pings."""
        return (
            ("grpc.keepalive_permit_without_calls", 1),
            # The C-core name of GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS.
            ("grpc.http2.min_ping_interval_without_data_ms", self.min_ping_interval_ms),
            ("grpc.http2.max_ping_strikes", self.max_ping_strikes),
            ("grpc.keepalive_time_ms", self.server_ping_interval_ms),
            ("grpc.keepalive_timeout_ms", self.ping_timeout_ms),
            ("grpc.http2.max_pings_without_data", 0),
        )


#: The policy every Maka Runtime client and server uses.
KEEPALIVE = KeepalivePolicy()

#: The kernel's link never pings more often than this (milliseconds), however short its
#: ``--resource-timeout``.
LINK_MIN_PING_INTERVAL_MS = 1000

#: The resource service's server policy: :data:`KEEPALIVE`, also accepting the link's pings
#: (a third of the link's fastest interval, so a timer firing early is never struck).
RESOURCE_SERVER = KeepalivePolicy(accept_ping_interval_ms=LINK_MIN_PING_INTERVAL_MS // 3)


def link_policy(resource_timeout: float) -> KeepalivePolicy:
    """The kernel's link to the resource service: a ping every half of *resource_timeout*
    (seconds), unanswered after the other half, so a frozen peer is found within the timeout
    (within twice :data:`LINK_MIN_PING_INTERVAL_MS` when the timeout is shorter than that)."""
    half_ms = max(LINK_MIN_PING_INTERVAL_MS, round(resource_timeout * 500))
    interval_ms = min(half_ms, KEEPALIVE.ping_interval_ms)
    return KeepalivePolicy(ping_interval_ms=interval_ms, ping_timeout_ms=half_ms)
