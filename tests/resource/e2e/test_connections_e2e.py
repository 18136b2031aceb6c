"""Connections own leases; attach streams; foreground streams that are abandoned."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from tests.resource.conftest import HELPERS
from tests.resource.e2e.conftest import (
    SESSION_ID,
    Server,
    open_connection,
    raises_status,
    start_server,
    stop_server,
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

    await first_channel.close()  # the client goes away: its OpenConnection stream ends
    await server.service.connections.wait_closed(first_connection)
    assert server.coordinator.controller_of(run.ref) is None

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


async def _foreground(stub: Any, command: str) -> pb.Run:
    request = pb.RunForegroundRequest(session_id=SESSION_ID, command=command, cwd="/")
    *_, last = [event async for event in stub.RunForeground(request)]
    result: pb.Run = last.result
    return result


async def test_watch_replays_then_follows_live_changes_and_resumes_after_a_change(
    server: Server,
) -> None:
    stub = server.stub()
    done = await _foreground(stub, "true")
    watch = stub.WatchRuns(pb.WatchRunsRequest(session_id=SESSION_ID, after_change_seq=0))
    replayed = (await watch.read()).run
    assert replayed == done  # a run that ended before the watch: once, in its final revision
    assert (replayed.status, replayed.revision) == (pb.RUN_STATUS_COMPLETED, 3)

    live = (
        await stub.StartBackground(
            pb.StartBackgroundRequest(session_id=SESSION_ID, command="sleep 60", cwd="/")
        )
    ).run
    await stub.StopRun(pb.StopRunRequest(session_id=SESSION_ID, ref=live.ref))
    changes: list[pb.Run] = []
    while not changes or changes[-1].status != pb.RUN_STATUS_CANCELLED:
        changes.append((await watch.read()).run)
    assert {change.ref for change in changes} == {live.ref}
    # Live changes in commit order (a watcher that lags may skip to a run's latest revision,
    # never back), ending with the terminal revision: starting, running, cancelled.
    revisions = [change.revision for change in changes]
    assert revisions == sorted(set(revisions)) and revisions[-1] == 3
    order = [pb.RUN_STATUS_STARTING, pb.RUN_STATUS_RUNNING, pb.RUN_STATUS_CANCELLED]
    assert [change.status for change in changes] == [order[r - 1] for r in revisions]
    seqs = [done.change_seq, *(change.change_seq for change in changes)]
    assert seqs == sorted(set(seqs))
    watch.cancel()

    # Resuming after the last change seen repeats nothing and misses nothing.
    later = await _foreground(stub, "true")
    resumed = stub.WatchRuns(
        pb.WatchRunsRequest(session_id=SESSION_ID, after_change_seq=changes[-1].change_seq)
    )
    first = (await resumed.read()).run
    assert first.ref == later.ref and first.status == pb.RUN_STATUS_COMPLETED
    assert first == later
    resumed.cancel()


async def test_a_watcher_that_keeps_up_gets_every_revision_of_a_fast_run(
    server: Server,
) -> None:
    # The client reads nothing while a whole `true` run commits; within its backlog the
    # watch still delivers starting, running and completed, once each, in order.
    stub = server.stub()
    before = await _foreground(stub, "true")
    watch = stub.WatchRuns(pb.WatchRunsRequest(session_id=SESSION_ID))
    assert (await watch.read()).run == before  # the replay; following from here
    fast = await _foreground(stub, "true")
    changes = [(await watch.read()).run]
    while changes[-1].revision != fast.revision:
        changes.append((await watch.read()).run)
    assert [(c.ref, c.revision, c.status) for c in changes] == [
        (fast.ref, 1, pb.RUN_STATUS_STARTING),
        (fast.ref, 2, pb.RUN_STATUS_RUNNING),
        (fast.ref, 3, pb.RUN_STATUS_COMPLETED),
    ]
    assert changes[-1] == fast
    watch.cancel()

    # Reconnecting after `before`: the replay from the store is each changed run's latest
    # revision (the store keeps no older ones), then live changes again.
    resumed = stub.WatchRuns(
        pb.WatchRunsRequest(session_id=SESSION_ID, after_change_seq=before.change_seq)
    )
    assert (await resumed.read()).run == fast
    later = await _foreground(stub, "true")
    followed = [(await resumed.read()).run]
    while followed[-1].revision != later.revision:
        followed.append((await resumed.read()).run)
    assert [(c.ref, c.revision) for c in followed] == [(later.ref, r) for r in (1, 2, 3)]
    resumed.cancel()


async def test_an_open_watch_ends_cleanly_when_the_server_shuts_down(server: Server) -> None:
    stub = server.stub()
    open_watch = stub.WatchRuns(pb.WatchRunsRequest(session_id="quiet-session"))
    report = await stub.Shutdown(pb.ShutdownRequest())
    assert list(report.ended) == [] and report.unfinished == 0
    assert [change async for change in open_watch] == []
    assert await server.serving == 0


async def test_a_client_killed_with_sigkill_releases_its_lease(server: Server) -> None:
    stub = server.stub()
    run = await _pty_run(stub)
    holder = await asyncio.create_subprocess_exec(
        sys.executable,
        str(HELPERS / "lease_holder.py"),
        server.address,
        SESSION_ID,
        run.ref,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert holder.stdout is not None
    try:
        connection = (await asyncio.wait_for(holder.stdout.readline(), 20)).decode().strip()
        assert server.coordinator.controller_of(run.ref) == (connection, "holder")
        mine, keepalive = await open_connection(stub, "waiting")
        request = pb.AcquireControllerRequest(
            session_id=SESSION_ID, ref=run.ref, controller_id="next", connection_id=mine
        )
        async with raises_status(grpc.StatusCode.ABORTED, "OPERATION_CONFLICT"):
            await stub.AcquireController(request)
    finally:
        holder.kill()  # SIGKILL: the client cancels nothing; the kernel closes its socket
        await holder.wait()
    await asyncio.wait_for(server.service.connections.wait_closed(connection), 20)
    assert server.coordinator.controller_of(run.ref) is None
    taken = await stub.AcquireController(request)
    assert taken.next_sequence == 1
    await stub.StopRun(pb.StopRunRequest(session_id=SESSION_ID, ref=run.ref))
    keepalive.cancel()


async def test_attach_replays_after_a_sequence_then_follows_live_output_and_controls(
    server: Server,
) -> None:
    stub = server.stub()
    connection, keepalive = await open_connection(stub, "typist")
    run = await _pty_run(
        stub, 'stty -echo; echo one; while IFS= read -r line; do echo "got:$line"; stty size; done'
    )
    # A first reader, watching only: everything up to "one", then the answer to a control.
    reader = stub.Attach()
    await reader.write(pb.AttachRequest(start=pb.AttachStart(session_id=SESSION_ID, ref=run.ref)))
    assert (await reader.read()).WhichOneof("event") == "attached"
    seen: list[pb.OutputChunk] = []

    async def read_until(needle: bytes) -> None:
        while needle not in b"".join(chunk.data for chunk in seen):
            event = await reader.read()
            assert event.WhichOneof("event") == "output", event
            seen.append(event.output)

    await read_until(b"one\r\n")
    after = seen[-1].sequence
    identity: dict[str, Any] = {
        "session_id": SESSION_ID,
        "ref": run.ref,
        "controller_id": "typist",
    }
    acquired = await stub.AcquireController(
        pb.AcquireControllerRequest(**identity, connection_id=connection)
    )
    assert acquired.next_sequence == 1
    assert (acquired.screen.cols, acquired.screen.rows) == (80, 24)
    assert acquired.screen.lines[0] == "one" and acquired.output_sequence == after
    await stub.ControlController(
        pb.ControlControllerRequest(
            **identity, connection_id=connection, sequence=1, input="first\r"
        )
    )
    await read_until(b"24 80\r\n")
    reader.cancel()
    missed = b"".join(chunk.data for chunk in seen if chunk.sequence > after)
    assert missed.startswith(b"got:first") and b"one" not in missed
    released = await stub.ReleaseController(
        pb.ReleaseControllerRequest(**identity, connection_id=connection)
    )
    assert released.released

    # Attach after "one" with control: the screen now, the replay of what came after, live.
    attach = stub.Attach()
    await attach.write(
        pb.AttachRequest(
            start=pb.AttachStart(
                session_id=SESSION_ID, ref=run.ref, after_sequence=after, controller_id="attached"
            )
        )
    )
    attached = (await attach.read()).attached
    assert attached.next_sequence == 1
    assert list(attached.screen.lines[:3]) == ["one", "got:first", "24 80"]
    assert attached.output_sequence == seen[-1].sequence  # nothing was printed since
    replay = b""
    while len(replay) < len(missed):
        event = await attach.read()
        assert event.WhichOneof("event") == "output", event
        assert event.output.sequence > after
        replay += event.output.data
    assert replay == missed
    assert event.output.sequence == attached.output_sequence

    resize_and_type = pb.AttachControl(
        sequence=1, input="second\r", resize=pb.TerminalSize(cols=100, rows=30)
    )
    await attach.write(pb.AttachRequest(control=resize_and_type))
    await attach.write(pb.AttachRequest(control=resize_and_type))  # an exact retry
    await attach.write(pb.AttachRequest(control=pb.AttachControl(sequence=1, input="other\r")))
    await attach.write(pb.AttachRequest(control=pb.AttachControl(sequence=2, input="\x04")))
    outcomes: list[pb.ControlOutcome] = []
    live = b""
    ended: pb.Run | None = None
    while (event := await attach.read()) is not grpc.aio.EOF:
        kind = event.WhichOneof("event")
        if kind == "control":
            outcomes.append(event.control)
        elif kind == "output":
            live += event.output.data
        elif kind == "ended":
            ended = event.ended
    first, retry, conflict, eof = outcomes
    assert first.applied.size == pb.TerminalSize(cols=100, rows=30)
    assert retry == first  # the identical result, applied once
    assert conflict.rejected.reason == "OPERATION_CONFLICT"
    assert eof.applied.sequence == 2
    assert live.count(b"got:second") == 1 and b"got:other" not in live
    assert b"got:second\r\n30 100\r\n" in live  # the resize came first
    assert ended is not None and ended.status == pb.RUN_STATUS_COMPLETED
    keepalive.cancel()


async def test_cancelling_a_waiting_watch_is_not_an_internal_error(tmp_path: Path) -> None:
    # Regression: the watch generator was closed while a read of it was still pending, which
    # logged "asynchronous generator is already running" as an unexpected error per cancel.
    server = await start_server(tmp_path / "data")
    stub = server.stub()
    done = await _foreground(stub, "true")
    watch = stub.WatchRuns(pb.WatchRunsRequest(session_id=SESSION_ID))
    assert (await watch.read()).run == done  # the server now waits for the next change
    watch.cancel()
    later = await _foreground(stub, "true")  # the service carries on
    assert later.status == pb.RUN_STATUS_COMPLETED
    await stop_server(server)  # fails if any call ended in an unexpected error
    assert server.unexpected.records == []
