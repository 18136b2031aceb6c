"""Shutdown through the real ``serve()`` path: the grace period running out, and a caller that
goes away while the drain it started is still going."""

from __future__ import annotations

import asyncio
import dataclasses
import signal
from pathlib import Path

import grpc
import pytest
from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from maka_runtime.common.storage_root import resolve_storage_root, try_acquire_root_owner
from maka_runtime.resource.core import ShellRunRecord
from maka_runtime.resource.store import SqliteShellRunStore
from tests.resource.conftest import HELPERS, PYTHON, process_gone
from tests.resource.e2e.conftest import (
    E2E_CONFIG,
    SESSION_ID,
    open_connection,
    raises_status,
    read_output_until,
    start_server,
    stop_server,
)

# Far longer than any test: a run that ignores SIGTERM can only end early if the host hurries.
PATIENT = dataclasses.replace(E2E_CONFIG, termination_grace=60.0)
STUBBORN = f'trap "" TERM; {PYTHON} {HELPERS / "ignore_term.py"}'


def start(command: str, *, pty: bool = False) -> pb.StartBackgroundRequest:
    return pb.StartBackgroundRequest(session_id=SESSION_ID, command=command, cwd="/", pty=pty)


async def stored(data_dir: Path, *refs: str) -> list[ShellRunRecord]:
    """The records as the server left them on disk (after it has exited)."""
    owner = try_acquire_root_owner(resolve_storage_root(data_dir / "resource", "resource"))
    assert owner is not None, "the server still owns its data directory"
    store = await SqliteShellRunStore.open(owner.lease)
    try:
        records = [await store.get(ref) for ref in refs]
    finally:
        await store.close()
        owner.close()
    assert all(record is not None for record in records)
    return [record for record in records if record is not None]


@pytest.mark.slow  # waits out a 1 s shutdown grace period
async def test_when_the_grace_runs_out_shutdown_reports_partial_counts_and_what_is_unfinished(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "data"
    server = await start_server(data_dir, PATIENT, shutdown_grace=1.0)
    try:
        stub = server.stub()
        connection, keepalive = await open_connection(stub, "controller")
        quick = (await stub.StartBackground(start("sleep 600"))).run
        stubborn = (await stub.StartBackground(start(STUBBORN, pty=True))).run
        await read_output_until(stub, stubborn.ref, b"READY")  # from here on it ignores TERM
        identity = {
            "session_id": SESSION_ID,
            "ref": stubborn.ref,
            "controller_id": "controller",
            "connection_id": connection,
        }
        await stub.AcquireController(pb.AcquireControllerRequest(**identity))

        shutdown = asyncio.ensure_future(stub.Shutdown(pb.ShutdownRequest()))
        await server.coordinator.manager.wait_closing(SESSION_ID, stubborn.ref)
        # Draining dropped the controller; the terminal being killed accepts nothing.
        async with raises_status(grpc.StatusCode.ABORTED, "OPERATION_CONFLICT"):
            await stub.ControlController(
                pb.ControlControllerRequest(**identity, sequence=1, input="x")
            )
        released = await stub.ReleaseController(pb.ReleaseControllerRequest(**identity))
        assert not released.released

        report = await shutdown
        assert [(count.status, count.count) for count in report.ended] == [
            (pb.RUN_STATUS_CANCELLED, 1)
        ]
        assert report.unfinished == 1
        assert list(report.unfinished_refs) == [stubborn.ref]
        assert report.lost == 0
        # The unfinished run is killed at once rather than after its 60 s grace period.
        async with asyncio.timeout(20):
            assert await server.serving == 0
        keepalive.cancel()
    finally:
        await stop_server(server)

    quick_final, stubborn_final = await stored(data_dir, quick.ref, stubborn.ref)
    assert (quick_final.status, quick_final.signal) == ("cancelled", signal.SIGTERM)
    assert (stubborn_final.status, stubborn_final.exit_code) == ("cancelled", 130)
    assert stubborn_final.signal == signal.SIGKILL
    assert process_gone(stubborn.pid)
    assert server.residencies == 0


async def test_a_shutdown_caller_that_goes_away_does_not_stop_the_shutdown(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "data"
    server = await start_server(data_dir)  # the stubborn run ends by SIGKILL 0.3 s after TERM
    try:
        stub = server.stub()
        stubborn = (await stub.StartBackground(start(STUBBORN))).run
        await read_output_until(stub, stubborn.ref, b"READY")
        call = stub.Shutdown(pb.ShutdownRequest())
        shutdown = asyncio.ensure_future(call)
        await server.coordinator.manager.wait_closing(SESSION_ID, stubborn.ref)
        call.cancel()  # the caller goes away while the run is still in its grace period
        with pytest.raises(asyncio.CancelledError):
            await shutdown
        async with raises_status(grpc.StatusCode.UNAVAILABLE, "HOST_DRAINING"):
            await stub.StartBackground(start("true"))
        async with asyncio.timeout(20):
            assert await server.serving == 0  # drained, stopped and closed: exit code 0
    finally:
        await stop_server(server)
    (final,) = await stored(data_dir, stubborn.ref)
    assert (final.status, final.signal) == ("cancelled", signal.SIGKILL)
    assert server.residencies == 0
