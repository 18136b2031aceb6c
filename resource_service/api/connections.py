"""Client connections: the unit that owns controller leases.

gRPC hides HTTP/2 connections, so a client opens one explicitly with the ``OpenConnection``
stream; its id is valid while the stream is open, and closing it (or the client going away,
which cancels the stream) releases every lease taken under it. An empty id means a *detached*
lease for scripts: it lasts until released or until its run ends.
"""

from __future__ import annotations

import logging
import uuid

from resource_service.core import ConnectionContext, HostRuntimeResourceCoordinator, NotFoundError

__all__ = ["DETACHED", "ConnectionRegistry"]

log = logging.getLogger("maka.resource.connections")

DETACHED = ConnectionContext(connection_id="detached", surface="detached")


class ConnectionRegistry:
    """The open connections of one server."""

    def __init__(self, coordinator: HostRuntimeResourceCoordinator) -> None:
        self._coordinator = coordinator
        self._open: dict[str, str] = {}

    def __len__(self) -> int:
        return len(self._open)

    def open(self, client_name: str, *, surface: str = "grpc") -> ConnectionContext:
        connection_id = f"conn-{uuid.uuid4().hex}"
        self._open[connection_id] = client_name
        log.debug("connection %s opened (%s)", connection_id, client_name or "unnamed")
        return ConnectionContext(connection_id=connection_id, surface=surface)

    def close(self, connection_id: str) -> int:
        """Forget the connection and release its leases; returns how many."""
        if self._open.pop(connection_id, None) is None:
            return 0
        released = self._coordinator.connection_closed(connection_id)
        log.debug("connection %s closed; released %d lease(s)", connection_id, released)
        return released

    def context(self, connection_id: str) -> ConnectionContext:
        """The connection a request names; NOT_FOUND if it is not open."""
        if not connection_id:
            return DETACHED
        if connection_id not in self._open:
            raise NotFoundError(
                f"connection {connection_id[:80]!r} is not open; open one with OpenConnection",
                field="connection_id",
            )
        return ConnectionContext(connection_id=connection_id, surface="grpc")
