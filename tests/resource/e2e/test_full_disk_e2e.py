"""A full data disk: refused writes are UNAVAILABLE/PERSISTENCE_FAILED, nothing unrelated is
cancelled, the service recovers by itself once space is freed, and a run whose end could not
be recorded gets it recorded then (or, after a restart, at the next start)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2
from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from tests.resource.e2e.conftest import (
    health_status,
    raises_status,
    start_server,
    stop_server,
)
from tests.support.disk import small_disk

REFUSED = (grpc.StatusCode.UNAVAILABLE, "PERSISTENCE_FAILED")
SESSION = "full-disk-session"
UNRELATED = "unrelated-session"


async def _start(stub: Any, session: str, command: str = "sleep 600") -> pb.Run:
    request = pb.StartBackgroundRequest(session_id=session, command=command, cwd="/")
    run: pb.Run = (await stub.StartBackground(request)).run
    return run


async def test_a_full_disk_refuses_writes_cancels_nothing_unrelated_and_recovers(
    tmp_path: Path,
) -> None:
    with small_disk(tmp_path / "disk") as disk:
        server = await start_server(disk.path / "data")
        try:
            channel = server.channel()
            stub = server.stub(channel)
            unrelated = await _start(stub, UNRELATED)
            ending = await _start(stub, SESSION)
            watch = stub.WatchRuns(
                pb.WatchRunsRequest(session_id=SESSION, after_change_seq=ending.change_seq)
            )
            disk.fill()

            async with raises_status(*REFUSED):
                await _start(stub, SESSION, "true")
            async with raises_status(*REFUSED) as stopped:
                await stub.StopRun(pb.StopRunRequest(session_id=SESSION, ref=ending.ref))
            assert "written as soon as the store takes writes again" in stopped["message"]
            async with raises_status(*REFUSED):  # its end is not committed yet
                await stub.GetRun(pb.GetRunRequest(session_id=SESSION, ref=ending.ref))

            # Nothing else changed: serving, no fail-stop, the unrelated run still runs.
            assert not server.failed
            assert await health_status(channel) == health_pb2.HealthCheckResponse.SERVING
            info = await stub.GetServerInfo(pb.GetServerInfoRequest())
            assert not info.draining
            live = await stub.GetRun(pb.GetRunRequest(session_id=UNRELATED, ref=unrelated.ref))
            assert live.run.status == pb.RUN_STATUS_RUNNING

            disk.free()
            # The refused end is written by itself once the store takes writes again.
            async for change in watch:
                if change.run.ref == ending.ref and change.run.status != pb.RUN_STATUS_RUNNING:
                    recorded = change.run
                    break
            watch.cancel()
            assert (recorded.status, recorded.exit_code) == (pb.RUN_STATUS_CANCELLED, 130)
            fetched = await stub.GetRun(pb.GetRunRequest(session_id=SESSION, ref=ending.ref))
            assert fetched.run == recorded

            started = await _start(stub, SESSION, "true")
            assert started.ref
            live = await stub.GetRun(pb.GetRunRequest(session_id=UNRELATED, ref=unrelated.ref))
            assert live.run.status == pb.RUN_STATUS_RUNNING
            assert await health_status(channel) == health_pb2.HealthCheckResponse.SERVING
            assert not server.failed
        finally:
            disk.free()
            await stop_server(server)


async def test_an_end_still_refused_at_shutdown_is_recorded_at_the_next_start(
    tmp_path: Path,
) -> None:
    with small_disk(tmp_path / "disk") as disk:
        server = await start_server(disk.path / "data")
        try:
            stub = server.stub()
            ending = await _start(stub, SESSION)
            disk.fill()
            async with raises_status(*REFUSED):
                await stub.StopRun(pb.StopRunRequest(session_id=SESSION, ref=ending.ref))
        finally:
            await stop_server(server)  # the end is still refused at close
        disk.free()
        again = await start_server(disk.path / "data")
        try:
            got = await again.stub().GetRun(pb.GetRunRequest(session_id=SESSION, ref=ending.ref))
            assert got.run.status == pb.RUN_STATUS_ORPHANED
        finally:
            await stop_server(again)
