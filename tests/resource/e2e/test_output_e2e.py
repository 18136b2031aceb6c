"""Output through the wire: a client that stops reading never stalls the program."""

from __future__ import annotations

import grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from tests.resource.conftest import helper
from tests.resource.e2e.conftest import SESSION_ID, Server, wait_until_ended

MiB = 1024 * 1024


async def test_a_client_that_stops_reading_a_100_mb_flood_does_not_stall_it(
    server: Server,
) -> None:
    size = 100 * 1000 * 1000
    reader, watcher = server.stub(server.channel()), server.stub(server.channel())
    watch = watcher.WatchRuns(pb.WatchRunsRequest(session_id=SESSION_ID))
    flood = reader.RunForeground(
        pb.RunForegroundRequest(session_id=SESSION_ID, command=helper("flood.py", str(size)))
    )
    first = await flood.read()
    assert first.WhichOneof("event") == "output"
    # The reader now stops reading. The run still ends: output is read as fast as the program
    # writes it, whatever the client does.
    while (change := (await watch.read()).run).status != pb.RUN_STATUS_COMPLETED:
        assert change.status in (pb.RUN_STATUS_STARTING, pb.RUN_STATUS_RUNNING)
    watch.cancel()

    events = [first]
    while (event := await flood.read()) is not grpc.aio.EOF:
        events.append(event)
    kinds = [event.WhichOneof("event") for event in events]
    assert kinds[-1] == "result" and kinds.count("result") == 1
    assert "gap" in kinds, "a reader that fell behind is told what it missed"
    # Sequences only grow (a lagging reader gets merged chunks, which carry the sequence of
    # the last read merged), and each gap starts right after what was last delivered.
    last = 0
    for event in events[:-1]:
        if event.WhichOneof("event") == "gap":
            assert event.gap.first_sequence == last + 1
            assert event.gap.last_sequence >= event.gap.first_sequence
            last = event.gap.last_sequence
        else:
            assert event.output.sequence > last
            last = event.output.sequence
    received = sum(len(event.output.data) for event in events[:-1] if event.HasField("output"))
    assert received < size  # what it missed was dropped, not buffered for it
    assert events[-2].output.data.endswith(b"xxxxEND\n")  # and it has the end
    result = events[-1].result
    assert result.status == pb.RUN_STATUS_COMPLETED
    assert result.pipes.stdout_truncated and len(result.pipes.stdout) == MiB
    assert result.pipes.stdout.endswith("xxxxEND\n")


async def test_a_pty_run_has_its_size_and_term_from_its_first_line(server: Server) -> None:
    stub = server.stub()
    started = await stub.StartBackground(
        pb.StartBackgroundRequest(
            session_id=SESSION_ID,
            command='stty size; echo "TERM=$TERM"',
            cwd="/",
            pty=True,
            size=pb.TerminalSize(cols=100, rows=30),
        )
    )
    ended = await wait_until_ended(stub, started.run.ref)
    assert ended.status == pb.RUN_STATUS_COMPLETED
    assert list(ended.screen.lines[:2]) == ["30 100", "TERM=xterm-256color"]
    assert (ended.screen.cols, ended.screen.rows) == (100, 30)
