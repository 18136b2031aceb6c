"""The async kernel client against a real ``maka-kernel``: sessions, turns, typed errors."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from maka_runtime_client import (
    AlreadyResolvedError,
    ClientClosedError,
    ClientOptions,
    InvalidRequestError,
    KernelClient,
    NotFoundError,
    SessionBusyError,
    is_turn_end,
)
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from tests.support.processes import ServiceProcess


@pytest.fixture
async def kernel(kernel_server: ServiceProcess) -> AsyncIterator[KernelClient]:
    async with KernelClient(kernel_server.address) as client:
        yield client


def kinds(events: list[pb.SessionEvent]) -> list[str]:
    return [str(event.WhichOneof("event")) for event in events]


async def test_session_crud(kernel: KernelClient, workspace: str) -> None:
    session = await kernel.create_session(workspace, name="demo", labels=["sdk"])
    assert session.workspace_root == workspace
    assert session.name == "demo"
    assert (await kernel.get_session(session.id)).id == session.id

    updated = await kernel.update_session(session.id, name="renamed", flagged=True, labels=["x"])
    assert (updated.name, updated.flagged, list(updated.labels)) == ("renamed", True, ["x"])
    cleared = await kernel.update_session(session.id, labels=[])
    assert list(cleared.labels) == []

    page = await kernel.list_sessions(label="x")
    assert session.id not in [s.id for s in page.sessions]
    await kernel.update_session(session.id, labels=["x"])
    page = await kernel.list_sessions(label="x")
    assert [s.id for s in page.sessions] == [session.id]
    archived = await kernel.list_sessions(archived=True)
    assert session.id not in [s.id for s in archived.sessions]

    await kernel.delete_session(session.id)
    with pytest.raises(NotFoundError) as caught:
        await kernel.get_session(session.id)
    assert caught.value.domain == "kernel.maka"


async def test_scripted_turn_streams_to_completion(kernel: KernelClient, workspace: str) -> None:
    session = await kernel.create_session(workspace)
    stream = kernel.start_turn(session.id, "/script say hello; tool bash ls; say done")
    events = [event async for event in stream]
    assert kinds(events) == [
        "text_delta",
        "tool_call",
        "tool_output",
        "tool_result",
        "text_delta",
        "complete",
        "turn_state",
    ]
    assert is_turn_end(events[-1])
    assert events[-1].turn_state.status == pb.TURN_STATUS_COMPLETED
    assert {event.turn_id for event in events} == {stream.turn_id}
    assert stream.last_seq == events[-1].seq
    assert stream.resumes == 0
    turns = await kernel.list_turns(session.id)
    assert [(t.turn_id, t.status) for t in turns] == [(stream.turn_id, pb.TURN_STATUS_COMPLETED)]

    # The same turn id and text attaches to the finished turn: the same events again.
    replay = kernel.start_turn(
        session.id, "/script say hello; tool bash ls; say done", turn_id=stream.turn_id
    )
    assert [event.seq async for event in replay] == [event.seq for event in events]


async def test_closing_a_finished_turn_stream_does_not_abandon_the_turn(
    kernel: KernelClient, workspace: str
) -> None:
    # Regression: cancelling StartTurn right after its terminal turn_state (before the server
    # ended the stream) made the kernel record a "stopped by stream_abandoned" note after the
    # turn had completed. The stream is now read to its end instead.
    session = await kernel.create_session(workspace)
    async with kernel.start_turn(session.id, "/script say done") as stream:
        async for event in stream:
            if is_turn_end(event):
                break
    log = await kernel.read_messages(session.id)
    assert log[-1].seq == event.seq
    assert log[-1].turn_state.status == pb.TURN_STATUS_COMPLETED


async def test_bad_input_is_invalid_request_with_field(kernel: KernelClient) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        await kernel.create_session("relative/path")
    assert caught.value.reason == "INVALID_REQUEST"
    assert caught.value.field == "workspace_root"


async def test_new_status_codes_are_typed(kernel: KernelClient, workspace: str) -> None:
    from maka_runtime_client import AlreadyExistsError, OutOfRangeError

    session = await kernel.create_session(workspace, session_id="sdk-typed")
    with pytest.raises(AlreadyExistsError) as exists:
        await kernel.create_session(workspace, session_id="sdk-typed")
    assert exists.value.reason == "ALREADY_EXISTS"
    last = (await kernel.read_messages(session.id))[-1].seq
    with pytest.raises(OutOfRangeError) as beyond:
        await kernel.read_messages(session.id, after_seq=last + 1)
    assert beyond.value.field == "after_seq"
    assert isinstance(beyond.value, InvalidRequestError)


async def test_second_turn_on_a_busy_session(kernel: KernelClient, workspace: str) -> None:
    session = await kernel.create_session(workspace)
    first = kernel.start_turn(session.id, "/script say busy; hang", turn_id="first")
    assert (await anext(first)).text_delta.text == "busy"

    with pytest.raises(SessionBusyError) as caught:
        await anext(kernel.start_turn(session.id, "/script say second"))
    assert caught.value.metadata.get("active_turn_id") == "first"

    stopped = await kernel.stop_session(session.id, source="sdk_test")
    assert stopped.turn_id == "first"
    rest = [event async for event in first]
    assert rest[-1].turn_state.status == pb.TURN_STATUS_ABORTED
    assert rest[-1].turn_state.abort_source == "sdk_test"


async def test_answering_twice_is_already_resolved(kernel: KernelClient, workspace: str) -> None:
    session = await kernel.create_session(workspace, permission_mode=pb.PERMISSION_MODE_ASK)
    stream = kernel.start_turn(session.id, "/script approve rm -rf build; say approved")
    request = await anext(stream)
    assert request.WhichOneof("event") == "sandbox_boundary_request"
    request_id = request.sandbox_boundary_request.request_id

    answered = await kernel.respond_to_sandbox_boundary(
        session.id, request_id, pb.SANDBOX_DECISION_ALLOW_ONCE
    )
    assert answered.status == pb.INTERACTION_STATUS_ANSWERED
    with pytest.raises(AlreadyResolvedError):
        await kernel.respond_to_sandbox_boundary(session.id, request_id, pb.SANDBOX_DECISION_DENY)

    rest = [event async for event in stream]
    assert "interaction_resolved" in kinds(rest)
    assert rest[-1].turn_state.status == pb.TURN_STATUS_COMPLETED


async def test_watch_session_replays_then_follows(kernel: KernelClient, workspace: str) -> None:
    session = await kernel.create_session(workspace)
    turn = [event async for event in kernel.start_turn(session.id, "/script say one")]
    log = await kernel.read_messages(session.id)
    async with kernel.watch_session(session.id) as watch:
        replayed = [await anext(watch) for _ in log]
        assert [e.seq for e in replayed] == [e.seq for e in log]
        second = kernel.start_turn(session.id, "/script say two")
        [event async for event in second]
        live = await anext(watch)
        assert live.seq == log[-1].seq + 1
    assert turn[-1].seq <= log[-1].seq


async def test_every_call_has_a_deadline_and_closed_clients_refuse(
    kernel_server: ServiceProcess,
) -> None:
    client = KernelClient(kernel_server.address, options=ClientOptions(timeout=7.5))
    assert client.options.timeout == 7.5
    info = await client.get_server_info()
    assert info.service == "maka-kernel"
    await client.close()
    await client.close()
    with pytest.raises(ClientClosedError):
        await client.get_server_info()


async def test_list_interactions_shows_what_waits_and_how_it_ended(
    kernel: KernelClient, workspace: str
) -> None:
    session = await kernel.create_session(workspace, permission_mode=pb.PERMISSION_MODE_ASK)
    stream = kernel.start_turn(session.id, "/script approve make deploy; say approved")
    request = await anext(stream)
    request_id = request.sandbox_boundary_request.request_id

    [waiting] = await kernel.list_interactions(session.id, pending_only=True)
    assert (waiting.request_id, waiting.status, waiting.outcome) == (
        request_id,
        pb.INTERACTION_STATUS_PENDING,
        pb.INTERACTION_OUTCOME_UNSPECIFIED,
    )
    assert waiting.sandbox_boundary_request.command == "make deploy"
    await kernel.respond_to_sandbox_boundary(session.id, request_id, pb.SANDBOX_DECISION_ALLOW_ONCE)
    _ = [event async for event in stream]

    assert await kernel.list_interactions(session.id, pending_only=True) == []
    [done] = await kernel.list_interactions(session.id)
    assert (done.status, done.decision, done.outcome) == (
        pb.INTERACTION_STATUS_ANSWERED,
        "allow_once",
        pb.INTERACTION_OUTCOME_ALLOW_ONCE,
    )
    assert done.resolved_at.ToMilliseconds() >= done.created_at.ToMilliseconds() > 0
    with pytest.raises(NotFoundError):
        await kernel.list_interactions("no-such-session")
