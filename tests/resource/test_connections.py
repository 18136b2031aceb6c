"""Client connections own leases: a lease is only granted to a connection that is still open."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from maka_runtime.resource.api.connections import ConnectionRegistry
from maka_runtime.resource.core import (
    ConnectionContext,
    ControllerIdentity,
    NotFoundError,
    SessionInfo,
    StandaloneSessionDirectory,
)
from tests.resource.conftest import SESSION_ID, bash_input, close_host, open_host, read_until


class GatedSessions(StandaloneSessionDirectory):
    """Standalone sessions whose lookups can be held at a gate, to stop an operation while it
    waits at its session's admission."""

    def __init__(self) -> None:
        super().__init__()
        self.gate: asyncio.Event | None = None
        self.waiting = asyncio.Event()

    async def lookup(self, session_id: str) -> SessionInfo | None:
        if self.gate is not None:
            self.waiting.set()
            await self.gate.wait()
        return await super().lookup(session_id)


async def test_a_connection_that_closes_while_its_acquire_waits_gets_no_lease(
    tmp_path: Path,
) -> None:
    sessions = GatedSessions()
    host = await open_host(tmp_path, sessions=sessions)
    try:
        coordinator = host.coordinator
        registry = ConnectionRegistry(coordinator)
        run = await coordinator.run_background_bash(
            bash_input("stty -echo; echo READY; cat", "call.race", pty=True)
        )
        await read_until(host.manager, run.ref, b"READY")
        connection = registry.open("leaving")
        identity = ControllerIdentity(SESSION_ID, run.ref, "leaving")

        sessions.gate = asyncio.Event()
        acquiring = asyncio.create_task(coordinator.acquire_controller(identity, connection))
        await sessions.waiting.wait()  # the acquire has passed the registry and now waits
        assert registry.close(connection.connection_id) == 0  # nothing to release yet
        await registry.wait_closed(connection.connection_id)
        sessions.gate.set()

        with pytest.raises(NotFoundError) as refused:
            await acquiring
        assert refused.value.field == "connection_id"
        assert coordinator.controller_of(run.ref) is None  # no lease left for a gone client
        sessions.gate = None
        other = await coordinator.acquire_controller(
            ControllerIdentity(SESSION_ID, run.ref, "staying"), registry.open("staying")
        )
        assert other.next_sequence == 1
        await coordinator.stop(SESSION_ID, run.ref)
        assert host.drain_requests == []
    finally:
        await close_host(host)


async def test_connections_without_liveness_and_detached_leases_are_granted(
    tmp_path: Path,
) -> None:
    host = await open_host(tmp_path)
    try:
        run = await host.coordinator.run_background_bash(
            bash_input("stty -echo; echo READY; cat", "call.detached", pty=True)
        )
        await read_until(host.manager, run.ref, b"READY")
        closed = ConnectionContext("closed", is_open=lambda: False)
        with pytest.raises(NotFoundError):
            await host.coordinator.acquire_controller(
                ControllerIdentity(SESSION_ID, run.ref, "k"), closed
            )
        acquired = await host.coordinator.acquire_controller(
            ControllerIdentity(SESSION_ID, run.ref, "k"), ConnectionContext("in-process")
        )
        assert acquired.next_sequence == 1
        await host.coordinator.stop(SESSION_ID, run.ref)
    finally:
        await close_host(host)
