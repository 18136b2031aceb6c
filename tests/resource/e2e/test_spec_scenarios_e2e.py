"""The three scenarios of runtime-resource-process.test.ts again, through a real server and real
channels: two channels are two connections."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2
from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from maka_runtime.common.storage_root import resolve_storage_root, try_acquire_root_owner
from maka_runtime.resource.store import SqliteShellRunStore
from tests.resource.conftest import HELPERS, PYTHON
from tests.resource.e2e.conftest import (
    E2E_CONFIG,
    SESSION_ID,
    Server,
    health_status,
    open_connection,
    raises_status,
    read_output_until,
    start_server,
    stop_server,
    wait_until_ended,
)

SERVING = health_pb2.HealthCheckResponse.SERVING


def background(command: str, tool_call: str, **fields: object) -> pb.StartBackgroundRequest:
    return pb.StartBackgroundRequest(
        session_id=SESSION_ID,
        source_turn_id="turn-1",
        source_tool_call_id=tool_call,
        cwd=str(HELPERS),
        command=command,
        **fields,  # type: ignore[arg-type]
    )


async def test_runs_pipes_and_serializes_one_pty_controller_across_two_connections(
    server: Server,
) -> None:
    first_channel, second_channel = server.channel(), server.channel()
    first, second = server.stub(first_channel), server.stub(second_channel)
    first_connection, first_keepalive = await open_connection(first, "connection-1")
    second_connection, second_keepalive = await open_connection(second, "connection-2")
    assert first_connection != second_connection
    # Two channels are two real connections: their streams come from two client sockets.
    connections = server.service.connections
    assert connections.peer(first_connection) != connections.peer(second_connection)
    assert str(connections.peer(first_connection)).startswith("ipv4:127.0.0.1:")

    events = [
        event
        async for event in first.RunForeground(
            pb.RunForegroundRequest(
                session_id=SESSION_ID,
                source_turn_id="turn-1",
                source_tool_call_id="call.foreground/1",
                cwd=str(HELPERS),
                command="printf foreground-ok",
            )
        )
    ]
    foreground = events[-1].result
    assert foreground.status == pb.RUN_STATUS_COMPLETED
    assert foreground.WhichOneof("output") == "pipes"
    assert foreground.pipes.stdout == "foreground-ok"
    assert b"".join(event.output.data for event in events[:-1]) == b"foreground-ok"

    started = (
        await first.StartBackground(
            background('IFS= read -r line; printf "received:%s\\n" "$line"', "call.pty/1", pty=True)
        )
    ).run
    assert started.status == pb.RUN_STATUS_RUNNING
    assert started.mode == pb.RUN_MODE_PTY
    assert server.residencies == 1

    identity = {"session_id": SESSION_ID, "ref": started.ref, "controller_id": "controller-1"}
    acquired = await first.AcquireController(
        pb.AcquireControllerRequest(**identity, connection_id=first_connection)
    )
    assert acquired.next_sequence == 1
    async with raises_status(grpc.StatusCode.ABORTED, "OPERATION_CONFLICT"):
        await second.AcquireController(
            pb.AcquireControllerRequest(
                session_id=SESSION_ID,
                ref=started.ref,
                controller_id="controller-2",
                connection_id=second_connection,
            )
        )

    control = pb.ControlControllerRequest(
        **identity, connection_id=first_connection, sequence=1, input="hello\r"
    )
    controlled = await first.ControlController(control)
    exact_retry = await first.ControlController(control)
    assert exact_retry == controlled

    terminal = await wait_until_ended(second, started.ref)
    assert terminal.status == pb.RUN_STATUS_COMPLETED
    assert terminal.WhichOneof("output") == "screen"
    assert re.search(
        r"received:hello", "\n".join([*terminal.screen.scrollback, *terminal.screen.lines])
    )
    assert server.residencies == 0

    release = await first.ReleaseController(
        pb.ReleaseControllerRequest(**identity, connection_id=first_connection)
    )
    assert release == pb.ReleaseControllerResponse(controller_id="controller-1", released=False)
    stopped = await second.StopRun(pb.StopRunRequest(session_id=SESSION_ID, ref=started.ref))
    assert stopped.run.status == pb.RUN_STATUS_COMPLETED

    queried = await second.GetRun(pb.GetRunRequest(session_id=SESSION_ID, ref=started.ref))
    assert queried.run.status == pb.RUN_STATUS_COMPLETED
    assert queried.run.source_tool_call_id == "call.pty/1"
    assert not server.failed
    assert await health_status(second_channel) == SERVING
    first_keepalive.cancel()
    second_keepalive.cancel()


async def test_treats_control_during_pty_timeout_as_a_resource_conflict_without_draining_host(
    server: Server,
) -> None:
    channel = server.channel()
    stub = server.stub(channel)
    connection, keepalive = await open_connection(stub, "connection-timeout")
    started = (
        await stub.StartBackground(
            background(
                'trap "" TERM; stty -echo; printf "READY\\n"; while :; do sleep 1; done',
                "call.timeout/1",
                pty=True,
                timeout_ms=350,
            )
        )
    ).run
    assert started.status == pb.RUN_STATUS_RUNNING
    assert server.residencies == 1
    identity = {
        "session_id": SESSION_ID,
        "ref": started.ref,
        "controller_id": "controller-timeout",
        "connection_id": connection,
    }
    acquired = await stub.AcquireController(pb.AcquireControllerRequest(**identity))
    assert acquired.next_sequence == 1

    # The spec polls writeStdin until the terminal closes; wait for that moment directly.
    await server.coordinator.manager.wait_closing(SESSION_ID, started.ref)

    async with raises_status(grpc.StatusCode.ABORTED, "OPERATION_CONFLICT") as refused:
        await stub.ControlController(
            pb.ControlControllerRequest(**identity, sequence=1, input="late input")
        )
    assert refused["metadata"].get("pty") == "closed"
    assert not server.failed

    released = await stub.ReleaseController(pb.ReleaseControllerRequest(**identity))
    assert released == pb.ReleaseControllerResponse(
        controller_id="controller-timeout", released=False
    )
    terminal = await wait_until_ended(stub, started.ref)
    assert terminal.status == pb.RUN_STATUS_TIMED_OUT
    assert terminal.exit_code == 124
    assert server.residencies == 0
    assert not server.failed
    assert await health_status(channel) == SERVING
    keepalive.cancel()


@pytest.mark.slow
async def test_drain_terminates_a_real_process_and_synchronously_rejects_new_startup(
    tmp_path: Path,
) -> None:
    # A grace period long enough that the drain is still going when the late start arrives.
    data_dir = tmp_path / "data"
    server = await start_server(data_dir, dataclasses.replace(E2E_CONFIG, termination_grace=1.5))
    try:
        stub = server.stub()
        started = (await stub.StartBackground(background("sleep 60", "shutdown-tool"))).run
        stubborn = (
            await stub.StartBackground(
                background(f'trap "" TERM; {PYTHON} ignore_term.py', "stubborn-tool")
            )
        ).run
        assert started.status == pb.RUN_STATUS_RUNNING
        assert server.residencies == 2
        # Once it has said READY it ignores SIGTERM: the drain has to wait out the grace period.
        await read_output_until(stub, stubborn.ref, b"READY")

        shutdown = asyncio.ensure_future(stub.Shutdown(pb.ShutdownRequest()))
        await server.coordinator.manager.wait_closing(SESSION_ID, started.ref)
        async with raises_status(grpc.StatusCode.UNAVAILABLE, "HOST_DRAINING") as refused:
            await stub.StartBackground(background("printf too-late", "late-tool"))
        assert refused["message"] == "Runtime resources are draining"
        report = await shutdown
        assert [(count.status, count.count) for count in report.ended] == [
            (pb.RUN_STATUS_CANCELLED, 2)
        ]
        assert report.unfinished == 0 and report.lost == 0
        await server.stopped.wait()
        assert server.residencies == 0
        assert not server.failed
    finally:
        await stop_server(server)

    owner = try_acquire_root_owner(resolve_storage_root(data_dir / "resource", "resource"))
    assert owner is not None
    store = await SqliteShellRunStore.open(owner.lease)
    try:
        for ref in (started.ref, stubborn.ref):
            record = await store.get(ref)
            assert record is not None and record.status == "cancelled"
    finally:
        await store.close()
        owner.close()
