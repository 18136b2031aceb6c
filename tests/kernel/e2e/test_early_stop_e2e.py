"""Over the wire: a stop that races its turn's start, with client-chosen turn ids."""

from __future__ import annotations

from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from .conftest import Server, create_session, kind


async def test_rapid_start_then_stop_pairs_all_end_aborted_without_running(
    server: Server,
) -> None:
    starter, stopper = server.stub(), server.stub()
    session = await create_session(starter)
    for i in range(8):
        turn_id = f"t{i}"
        call = starter.StartTurn(
            pb.StartTurnRequest(
                session_id=session.id, turn_id=turn_id, text=f"/script hang; say ran{i}"
            )
        )
        stopped = await stopper.StopSession(
            pb.StopSessionRequest(session_id=session.id, source="stop_button", turn_id=turn_id)
        )
        assert (stopped.stopped, stopped.turn_id) == (True, turn_id)
        events = [response.event async for response in call]
        states = [e.turn_state for e in events if kind(e) == "turn_state"]
        assert [(s.status, s.abort_source) for s in states] == [
            (pb.TURN_STATUS_ABORTED, "stop_button")
        ]
        assert not any(kind(e) == "text_delta" and e.text_delta.text == f"ran{i}" for e in events)
    turns = (await stopper.ListTurns(pb.ListTurnsRequest(session_id=session.id))).turns
    assert [(t.turn_id, t.status) for t in turns] == [
        (f"t{i}", pb.TURN_STATUS_ABORTED) for i in range(8)
    ]
    log = (await stopper.ReadMessages(pb.ReadMessagesRequest(session_id=session.id))).events
    notes = [e.system_note.kind for e in log if kind(e) == "system_note"]
    assert notes.count(pb.SYSTEM_NOTE_KIND_ABORT) == 8


async def test_a_stop_sent_before_its_start_aborts_the_turn_before_it_runs(
    server: Server,
) -> None:
    stub = server.stub()
    session = await create_session(stub)
    stopped = await stub.StopSession(pb.StopSessionRequest(session_id=session.id, turn_id="t1"))
    assert (stopped.stopped, stopped.turn_id) == (True, "t1")
    call = stub.StartTurn(
        pb.StartTurnRequest(session_id=session.id, turn_id="t1", text="/script say never")
    )
    events = [response.event async for response in call]
    assert [kind(e) for e in events] == ["turn_state"]
    assert events[0].turn_state.status == pb.TURN_STATUS_ABORTED
    log = (await stub.ReadMessages(pb.ReadMessagesRequest(session_id=session.id))).events
    assert not any(kind(e) == "text_delta" for e in log)
    idle = await stub.StopSession(pb.StopSessionRequest(session_id=session.id))
    assert (idle.stopped, idle.turn_id) == (False, "")
