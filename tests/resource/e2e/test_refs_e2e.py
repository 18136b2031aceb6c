"""A ref names one run: every RPC that takes a ref works without a session id, a session id that
is not the run's is NOT_FOUND, and ListRuns without a session lists every session's runs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypedDict

import grpc
from maka_runtime_proto.resource.v1 import resource_pb2 as pb

from maka_runtime.resource.core import StandaloneSessionDirectory
from tests.resource.e2e.conftest import (
    Server,
    open_connection,
    raises_status,
    start_server,
    stop_server,
)

OWNER = "ref-owner"
OTHER = "ref-other"
UNKNOWN = "maka://runtime/background-tasks/0123456789abcdef"


async def start_pty(stub: Any, session_id: str = OWNER, command: str = "cat") -> pb.Run:
    response = await stub.StartBackground(
        pb.StartBackgroundRequest(session_id=session_id, command=command, pty=True, cwd="/")
    )
    run: pb.Run = response.run
    assert run.status == pb.RUN_STATUS_RUNNING
    return run


async def run_to_end(stub: Any, session_id: str) -> pb.Run:
    events = [
        event
        async for event in stub.RunForeground(
            pb.RunForegroundRequest(session_id=session_id, command="true", cwd="/")
        )
    ]
    result: pb.Run = events[-1].result
    return result


async def attach_until(call: Any, needle: bytes) -> pb.Attached:
    """Read an attach stream: its ``attached`` event, then output until *needle* appears."""
    first = await call.read()
    assert first.WhichOneof("event") == "attached", first
    seen = b""
    while needle not in seen:
        event = await call.read()
        assert event is not grpc.aio.EOF, seen
        if event.WhichOneof("event") == "output":
            seen += event.output.data
    attached: pb.Attached = first.attached
    return attached


async def test_every_rpc_that_takes_a_ref_works_without_a_session(server: Server) -> None:
    stub = server.stub()
    run = await start_pty(stub)
    connection, keep = await open_connection(stub, "refs")
    try:
        got = (await stub.GetRun(pb.GetRunRequest(ref=run.ref))).run
        assert (got.ref, got.session_id, got.status) == (run.ref, OWNER, pb.RUN_STATUS_RUNNING)

        acquired = await stub.AcquireController(
            pb.AcquireControllerRequest(ref=run.ref, controller_id="c", connection_id=connection)
        )
        assert acquired.next_sequence == 1
        applied = await stub.ControlController(
            pb.ControlControllerRequest(
                ref=run.ref, controller_id="c", connection_id=connection, sequence=1, input="one\r"
            )
        )
        assert applied.sequence == 1
        assert server.coordinator.controller_of(run.ref) == (connection, "c")

        follower = stub.Attach()
        await follower.write(pb.AttachRequest(start=pb.AttachStart(ref=run.ref)))
        attached = await attach_until(follower, b"one")
        assert attached.run.session_id == OWNER
        follower.cancel()

        released = await stub.ReleaseController(
            pb.ReleaseControllerRequest(ref=run.ref, controller_id="c", connection_id=connection)
        )
        assert released.released

        # Attach with a controller: the stream's lease, and its controls, by ref alone.
        controlling = stub.Attach()
        await controlling.write(
            pb.AttachRequest(start=pb.AttachStart(ref=run.ref, controller_id="a"))
        )
        first = await controlling.read()
        assert (first.attached.run.session_id, first.attached.next_sequence) == (OWNER, 1)
        await controlling.write(
            pb.AttachRequest(control=pb.AttachControl(sequence=1, input="two\r"))
        )
        while (event := await controlling.read()).WhichOneof("event") != "control":
            assert event is not grpc.aio.EOF
        assert event.control.WhichOneof("outcome") == "applied", event.control
        controlling.cancel()

        stopped = (await stub.StopRun(pb.StopRunRequest(ref=run.ref))).run
        assert (stopped.session_id, stopped.status) == (OWNER, pb.RUN_STATUS_CANCELLED)
        # An ended run too, and its output, by ref alone.
        ended = (await stub.GetRun(pb.GetRunRequest(ref=run.ref))).run
        assert "two" in "\n".join(ended.screen.lines)
        again = stub.Attach()
        await again.write(pb.AttachRequest(start=pb.AttachStart(ref=run.ref)))
        events = [await again.read()]
        while events[-1].WhichOneof("event") != "ended":
            events.append(await again.read())
        kinds = {e.WhichOneof("event") for e in events[1:-1]}
        assert events[0].WhichOneof("event") == "attached" and kinds == {"output"}
        assert b"two" in b"".join(e.output.data for e in events[1:-1])  # replayed once ended
        assert events[-1].ended.session_id == OWNER
    finally:
        keep.cancel()
    assert not server.failed


class LeaseFields(TypedDict):
    ref: str
    controller_id: str
    connection_id: str


async def test_a_session_that_is_not_the_runs_is_not_found(server: Server) -> None:
    stub = server.stub()
    run = await start_pty(stub)
    await start_pty(stub, OTHER)  # the other session exists and has runs of its own
    connection, keep = await open_connection(stub, "refs")

    def calls(ref: str) -> list[tuple[str, Callable[[], Awaitable[Any]]]]:
        async def attach(controller_id: str = "") -> Any:
            call = stub.Attach()
            start = pb.AttachStart(session_id=OTHER, ref=ref, controller_id=controller_id)
            await call.write(pb.AttachRequest(start=start))
            return await call.read()

        lease: LeaseFields = {"ref": ref, "controller_id": "c", "connection_id": connection}
        return [
            ("GetRun", lambda: stub.GetRun(pb.GetRunRequest(session_id=OTHER, ref=ref))),
            ("StopRun", lambda: stub.StopRun(pb.StopRunRequest(session_id=OTHER, ref=ref))),
            (
                "AcquireController",
                lambda: stub.AcquireController(
                    pb.AcquireControllerRequest(session_id=OTHER, **lease)
                ),
            ),
            (
                "ControlController",
                lambda: stub.ControlController(
                    pb.ControlControllerRequest(session_id=OTHER, sequence=1, input="x", **lease)
                ),
            ),
            (
                "ReleaseController",
                lambda: stub.ReleaseController(
                    pb.ReleaseControllerRequest(session_id=OTHER, **lease)
                ),
            ),
            ("Attach", attach),
            ("Attach with a controller", lambda: attach("c")),
        ]

    try:
        for (name, call), (_, unknown) in zip(calls(run.ref), calls(UNKNOWN), strict=True):
            async with raises_status(grpc.StatusCode.NOT_FOUND, "NOT_FOUND") as mismatched:
                await call()
            async with raises_status(grpc.StatusCode.NOT_FOUND, "NOT_FOUND") as missing:
                await unknown()
            # Indistinguishable from a ref that names no run: the field, and the message but
            # for the ref itself.
            field = "start.ref" if name.startswith("Attach") else "ref"
            assert mismatched["metadata"] == missing["metadata"] == {"field": field}, name
            assert mismatched["message"].replace(run.ref, UNKNOWN) == missing["message"], name
            assert mismatched["message"] == f"no run {run.ref} in session {OTHER}", name
        # Nothing happened to the run.
        assert server.coordinator.controller_of(run.ref) is None
        still = (await stub.GetRun(pb.GetRunRequest(session_id=OWNER, ref=run.ref))).run
        assert still.status == pb.RUN_STATUS_RUNNING
    finally:
        keep.cancel()
    assert not server.failed


async def test_list_runs_without_a_session_lists_every_visible_session(tmp_path: Path) -> None:
    sessions = StandaloneSessionDirectory(admit_unknown=False)
    for session_id in (OWNER, OTHER, "archived-later", "deleted-later"):
        sessions.register(session_id, cwd="/")
    server = await start_server(tmp_path / "data", sessions=sessions)
    try:
        stub = server.stub()
        mine = [await run_to_end(stub, OWNER)]
        hidden = [await run_to_end(stub, "archived-later"), await run_to_end(stub, "deleted-later")]
        theirs = [await run_to_end(stub, OTHER)]
        mine.append(await run_to_end(stub, OWNER))
        hidden.append(await run_to_end(stub, "archived-later"))
        sessions.archive("archived-later")
        sessions.archive("deleted-later", deleted=True)

        everything = (await stub.ListRuns(pb.ListRunsRequest(page_size=500))).runs
        assert {run.ref for run in everything} == {run.ref for run in mine + theirs}
        assert {run.session_id for run in everything} == {OWNER, OTHER}
        assert not everything or not (await stub.ListRuns(pb.ListRunsRequest())).next_page_token

        # Pages of one: the runs left out do not shorten a page; the pages add up to the list.
        pages: list[list[str]] = []
        token = ""
        while True:
            page = await stub.ListRuns(pb.ListRunsRequest(page_size=1, page_token=token))
            pages.append([run.ref for run in page.runs])
            token = page.next_page_token
            if not token:
                break
        assert pages == [[run.ref] for run in everything]

        # One session's runs as before; the hidden ones are refused by ref too.
        owned = (await stub.ListRuns(pb.ListRunsRequest(session_id=OWNER))).runs
        assert {run.ref for run in owned} == {run.ref for run in mine}
        async with raises_status(grpc.StatusCode.FAILED_PRECONDITION, "SESSION_ARCHIVED"):
            await stub.GetRun(pb.GetRunRequest(ref=hidden[0].ref))
        async with raises_status(grpc.StatusCode.NOT_FOUND, "NOT_FOUND"):
            await stub.GetRun(pb.GetRunRequest(ref=hidden[1].ref))
        assert not server.failed
    finally:
        await stop_server(server)
