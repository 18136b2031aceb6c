"""Client connections: the unit that owns controller leases.

gRPC hides HTTP/2 connections, so a client opens one explicitly with the ``OpenConnection``
stream; its id is valid while the stream is open, and closing it (or the client going away,
which cancels the stream) releases every lease taken under it. An empty id means a *detached*
lease for scripts: it lasts until released or until its run ends.
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass, field

from maka_runtime.resource.core import ConnectionContext, NotFoundError, ResourceHost, check_length

__all__ = ["DETACHED", "ConnectionRegistry"]

log = logging.getLogger("maka.resource.connections")

DETACHED = ConnectionContext(connection_id="detached", surface="detached")


@dataclass
class _Connection:
    client_name: str
    #: Where the connection's stream came from, as gRPC says (e.g. ``ipv4:127.0.0.1:50312``).
    peer: str
    #: Set once the connection has closed and its leases are released.
    closed: asyncio.Event = field(default_factory=asyncio.Event)


class ConnectionRegistry:
    """The open connections of one server."""

    def __init__(self, resources: ResourceHost) -> None:
        self._resources = resources
        self._open: dict[str, _Connection] = {}

    def __len__(self) -> int:
        return len(self._open)

    def open(self, client_name: str, *, peer: str = "", surface: str = "grpc") -> ConnectionContext:
        check_length("client_name", client_name)
        connection_id = f"conn-{os.urandom(16).hex()}"
        self._open[connection_id] = _Connection(client_name, peer)
        log.debug(
            "connection %s opened by %s from %s",
            connection_id,
            client_name or "an unnamed client",
            peer or "an unknown peer",
        )
        return self._context(connection_id, surface)

    def close(self, connection_id: str) -> int:
        """Forget the connection and release its leases; returns how many."""
        connection = self._open.pop(connection_id, None)
        if connection is None:
            return 0
        released = self._resources.connection_closed(connection_id)
        log.debug("connection %s closed; released %d lease(s)", connection_id, released)
        connection.closed.set()
        return released

    async def wait_closed(self, connection_id: str) -> None:
        """Return once the connection is closed and its leases are released."""
        connection = self._open.get(connection_id)
        if connection is not None:
            await connection.closed.wait()

    def peer(self, connection_id: str) -> str | None:
        """Where an open connection came from; ``None`` if it is not open."""
        connection = self._open.get(connection_id)
        return None if connection is None else connection.peer

    def context(self, connection_id: str) -> ConnectionContext:
        """The connection a request names; NOT_FOUND if it is not open."""
        if not connection_id:
            return DETACHED
        check_length("connection_id", connection_id)
        if connection_id not in self._open:
            raise NotFoundError(
                f"connection {connection_id[:80]!r} is not open; open one with OpenConnection",
                field="connection_id",
            )
        return self._context(connection_id, "grpc")

    def _context(self, connection_id: str, surface: str) -> ConnectionContext:
        # The resource host asks again at the moment it grants a lease: the connection may close
        # while an acquire waits at its session's gate.
        return ConnectionContext(
            connection_id=connection_id,
            surface=surface,
            is_open=lambda: connection_id in self._open,
        )
