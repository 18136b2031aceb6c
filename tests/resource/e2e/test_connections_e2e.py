"""Connections own leases; attach streams; foreground streams that are abandoned."""

from __future__ import annotations

import asyncio

import grpc
from maka.resource.v1 import resource_pb2 as pb

from tests.resource.e2e.conftest import (
    SESSION_ID,
    Server,
    open_connection,
    raises_status,
    wait_until_ended,
)


async def _pty_run(stub: object, command: str = "cat") -> pb.Run:
    response = await stub.StartBackground(  # type: ignore[attr-defined]
        pb.StartBackgroundRequest(session_id=SESSION_ID, command=command, cwd="/", pty=True)
    )
    run: pb.Run = response.run
    return run


async def test_closing_a_channel_releases_its_leases(server: Server) -> None:
    first_channel, second_channel = server.channel(), server.channel()
    first, second = server.stub(first_channel), server.stub(second_channel)
    first_connection, _ = await open_connection(first, "first")
    second_connection, keepalive = await open_connection(second, "second")
    run = await _pty_run(first)

    def acquire(controller: str, connection: str) -> pb.AcquireControllerRequest:
        return pb.AcquireControllerRequest(
            session_id=SESSION_ID, ref=run.ref, controller_id=controller, connection_id=connection
        )

    await first.AcquireController(acquire("first-controller", first_connection))
    async with raises_status(grpc.StatusCode.ABORTED, "OPERATION_CONFLICT"):
        await second.AcquireController(acquire("second-controller", second_connection))

    released = asyncio.Event()
    coordinator = server.coordinator
    original = coordinator.connection_closed

    def observe(connection_id: str) -> int:
        count: int = original(connection_id)
        if connection_id == first_connection:
            released.set()
        return count

    coordinator.connection_closed = observe
    await first_channel.close()  # the client goes away: its OpenConnection stream ends
    await released.wait()

    taken = await second.AcquireController(acquire("second-controller", second_connection))
    assert taken.next_sequence == 1
    async with raises_status(grpc.StatusCode.NOT_FOUND, "NOT_FOUND") as stale:
        await second.AcquireController(acquire("first-controller", first_connection))
    assert stale["metadata"] == {"field": "connection_id"}
    await second.StopRun(pb.StopRunRequest(session_id=SESSION_ID, ref=run.ref))
    keepalive.cancel()


async def test_attach_replays_controls_and_ends_with_the_run(server: Server) -> None:
    stub = server.stub()
    run = await _pty_run(stub, 'stty -echo; echo READY; IFS= read -r line; echo "got:$line"')
    call = stub.Attach()
    await call.write(
        pb.AttachRequest(
            start=pb.AttachStart(
                session_id=SESSION_ID, ref=run.ref, after_sequence=0, controller_id="attached"
            )
        )
    )
    attached = (await call.read()).attached
    assert attached.next_sequence == 1
    assert attached.run.ref == run.ref
    assert attached.screen.cols == 80 and attached.screen.rows == 24

    output = b""
    while b"READY" not in output:
        event = await call.read()
        assert event.WhichOneof("event") == "output"
        output += event.output.data
    await call.write(pb.AttachRequest(control=pb.AttachControl(sequence=2, input="skipped\r")))
    await call.write(pb.AttachRequest(control=pb.AttachControl(sequence=1, input="hello\r")))
    outcomes: list[pb.ControlOutcome] = []
    ended: pb.Run | None = None
    while (event := await call.read()) is not grpc.aio.EOF:
        kind = event.WhichOneof("event")
        if kind == "control":
            outcomes.append(event.control)
        elif kind == "output":
            output += event.output.data
        elif kind == "ended":
            ended = event.ended
    assert [outcome.WhichOneof("outcome") for outcome in outcomes] == ["rejected", "applied"]
    assert outcomes[0].rejected.reason == "OPERATION_CONFLICT"
    assert outcomes[0].rejected.code == grpc.StatusCode.ABORTED.value[0]
    assert outcomes[1].applied.input_bytes == len("hello\r")
    assert b"got:hello" in output
    assert ended is not None and ended.status == pb.RUN_STATUS_COMPLETED
    assert server.coordinator.controller_of(run.ref) is None


async def test_a_second_controller_cannot_attach_with_control(server: Server) -> None:
    stub = server.stub()
    connection, keepalive = await open_connection(stub, "holder")
    run = await _pty_run(stub)
    await stub.AcquireController(
        pb.AcquireControllerRequest(
            session_id=SESSION_ID, ref=run.ref, controller_id="holder", connection_id=connection
        )
    )
    call = stub.Attach()
    await call.write(
        pb.AttachRequest(
            start=pb.AttachStart(session_id=SESSION_ID, ref=run.ref, controller_id="intruder")
        )
    )
    async with raises_status(grpc.StatusCode.ABORTED, "OPERATION_CONFLICT"):
        await call.read()
    # Watching without control is always allowed.
    watcher = stub.Attach()
    await watcher.write(pb.AttachRequest(start=pb.AttachStart(session_id=SESSION_ID, ref=run.ref)))
    assert (await watcher.read()).attached.next_sequence == 0
    watcher.cancel()
    await stub.StopRun(pb.StopRunRequest(session_id=SESSION_ID, ref=run.ref))
    keepalive.cancel()


async def test_cancelling_a_foreground_stream_cancels_the_run(server: Server) -> None:
    stub = server.stub()
    call = stub.RunForeground(
        pb.RunForegroundRequest(session_id=SESSION_ID, command="echo first; sleep 60", cwd="/")
    )
    first = await call.read()
    assert first.output.data == b"first\n"
    call.cancel()
    runs = (await stub.ListRuns(pb.ListRunsRequest(session_id=SESSION_ID))).runs
    assert len(runs) == 1
    final = await wait_until_ended(stub, runs[0].ref)
    assert final.status == pb.RUN_STATUS_CANCELLED
    assert final.exit_code == 130


async def test_watch_streams_changes_until_shutdown(server: Server) -> None:
    stub = server.stub()
    watch = stub.WatchRuns(pb.WatchRunsRequest(session_id=SESSION_ID))
    await stub.RunForeground(
        pb.RunForegroundRequest(session_id=SESSION_ID, command="true", cwd="/")
    ).read()
    statuses = []
    async for change in watch:
        statuses.append(change.run.status)
        if change.run.status == pb.RUN_STATUS_COMPLETED:
            break
    assert statuses[-1] == pb.RUN_STATUS_COMPLETED
    # A watch still open when the server shuts down ends cleanly with it.
    open_watch = stub.WatchRuns(pb.WatchRunsRequest(session_id="quiet-session"))
    report = await stub.Shutdown(pb.ShutdownRequest())
    assert list(report.ended) == []
    assert [change async for change in open_watch] == []
