"""Turns over the wire: streaming, stops, cancellation, approvals, watchers, shutdown."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from maka_runtime.kernel.core.recovery import recover_interrupted

from .conftest import Server, create_session, failure, kind, read_until, reason, reopened_store


async def log_of(stub: object, session_id: str) -> list[pb.SessionEvent]:
    response = await stub.ReadMessages(pb.ReadMessagesRequest(session_id=session_id))  # type: ignore[attr-defined]
    return list(response.events)


async def test_a_scripted_turn_streams_committed_events(server: Server) -> None:
    stub = server.stub()
    session = await create_session(stub, name="demo", labels=["e2e"])
    assert (session.status, session.backend, session.permission_mode) == (
        pb.SESSION_STATUS_ACTIVE,
        "scripted",
        pb.PERMISSION_MODE_ASK,
    )
    call = stub.StartTurn(
        pb.StartTurnRequest(
            session_id=session.id, turn_id="t1", text="/script say hello; tool bash ls; words 2"
        )
    )
    events = [response.event async for response in call]
    assert [kind(e) for e in events] == [
        "text_delta",
        "tool_call",
        "tool_output",
        "tool_result",
        "text_delta",
        "text_delta",
        "complete",
        "turn_state",
    ]
    assert events[-1].turn_state.status == pb.TURN_STATUS_COMPLETED
    stored = {e.seq: e for e in await log_of(stub, session.id)}
    assert all(stored[e.seq] == e for e in events)
    assert [e.seq for e in events] == sorted(e.seq for e in events)
    turns = (await stub.ListTurns(pb.ListTurnsRequest(session_id=session.id))).turns
    assert [(t.turn_id, t.status, t.text) for t in turns] == [
        ("t1", pb.TURN_STATUS_COMPLETED, "/script say hello; tool bash ls; words 2")
    ]
    header = (await stub.GetSession(pb.GetSessionRequest(session_id=session.id))).session
    assert (header.status, header.has_unread, header.labels) == (
        pb.SESSION_STATUS_ACTIVE,
        True,
        ["e2e"],
    )


async def test_stop_immediate_from_another_channel(server: Server) -> None:
    stub = server.stub()
    session = await create_session(stub)
    call = stub.StartTurn(
        pb.StartTurnRequest(session_id=session.id, turn_id="t1", text="/script say a; hang")
    )
    await read_until(call, "text_delta")
    other = server.stub()
    stopped = await other.StopSession(
        pb.StopSessionRequest(session_id=session.id, source="stop_button")
    )
    assert (stopped.turn_id, stopped.mode) == ("t1", pb.STOP_MODE_IMMEDIATE)
    # StopSession returns once the stop is projected: it is on the record before the stream
    # is read any further.
    log = await log_of(other, session.id)
    assert [
        (e.turn_state.status, e.turn_state.abort_source) for e in log if kind(e) == "turn_state"
    ] == [(pb.TURN_STATUS_RUNNING, ""), (pb.TURN_STATUS_ABORTED, "stop_button")]
    assert (await other.GetSession(pb.GetSessionRequest(session_id=session.id))).session.status == (
        pb.SESSION_STATUS_ABORTED
    )
    rest = [response.event async for response in call]
    [state] = [e for e in rest if kind(e) == "turn_state"]
    assert (state.turn_state.status, state.turn_state.abort_source) == (
        pb.TURN_STATUS_ABORTED,
        "stop_button",
    )
    assert [e.complete.stop_reason for e in rest if kind(e) == "complete"] == ["user_stop"]
    notes = [e for e in await log_of(stub, session.id) if kind(e) == "system_note"]
    assert [n.system_note.kind for n in notes].count(pb.SYSTEM_NOTE_KIND_ABORT) == 1
    header = (await stub.GetSession(pb.GetSessionRequest(session_id=session.id))).session
    assert header.status == pb.SESSION_STATUS_ABORTED


async def test_stop_after_step_lets_the_current_step_finish(server: Server) -> None:
    stub = server.stub()
    session = await create_session(stub)
    call = stub.StartTurn(
        pb.StartTurnRequest(session_id=session.id, text="/script ask go on?; say never")
    )
    await read_until(call, "user_question_request")
    stopped = await server.stub().StopSession(
        pb.StopSessionRequest(session_id=session.id, mode=pb.STOP_MODE_AFTER_STEP)
    )
    assert stopped.mode == pb.STOP_MODE_AFTER_STEP
    rest = [response.event async for response in call]
    texts = [e.text_delta.text for e in rest if kind(e) == "text_delta"]
    assert texts == ["question cancelled: turn_stopped"]
    [resolved] = [e for e in rest if kind(e) == "interaction_resolved"]
    assert resolved.interaction_resolved.outcome == pb.INTERACTION_OUTCOME_CLOSED


async def test_cancelling_the_stream_stops_the_turn_and_records_the_abort(server: Server) -> None:
    stub = server.stub()
    session = await create_session(stub)
    watch = server.stub().WatchSession(pb.WatchSessionRequest(session_id=session.id))
    call = stub.StartTurn(
        pb.StartTurnRequest(session_id=session.id, turn_id="t1", text="/script say a; hang")
    )
    await read_until(call, "text_delta")
    call.cancel()
    # Nobody listens to the turn any more; its stop is still delivered and recorded.
    aborted = complete = None
    async for response in watch:
        event = response.event
        if kind(event) == "turn_state" and event.turn_state.status == pb.TURN_STATUS_ABORTED:
            aborted = event
        if kind(event) == "complete":
            complete = event
        if aborted is not None and complete is not None:
            break
    assert aborted is not None and complete is not None
    assert aborted.turn_state.abort_source == "stream_abandoned"
    assert complete.complete.stop_reason == "user_stop"
    watch.cancel()
    log = await log_of(stub, session.id)
    notes = [e.system_note for e in log if kind(e) == "system_note"]
    assert [(n.kind, n.source) for n in notes if n.kind == pb.SYSTEM_NOTE_KIND_ABORT] == [
        (pb.SYSTEM_NOTE_KIND_ABORT, "stream_abandoned")
    ]
    turns = (await stub.ListTurns(pb.ListTurnsRequest(session_id=session.id))).turns
    assert [(t.status, t.abort_source) for t in turns] == [
        (pb.TURN_STATUS_ABORTED, "stream_abandoned")
    ]


async def test_an_approval_answered_from_a_second_channel(server: Server) -> None:
    stub = server.stub()
    session = await create_session(stub)
    call = stub.StartTurn(
        pb.StartTurnRequest(session_id=session.id, text="/script approve make deploy; say done")
    )
    [request] = await read_until(call, "sandbox_boundary_request")
    approver = server.stub()
    waiting = (await approver.GetSession(pb.GetSessionRequest(session_id=session.id))).session
    assert waiting.status == pb.SESSION_STATUS_WAITING_FOR_USER
    answered = await approver.RespondToSandboxBoundary(
        pb.RespondToSandboxBoundaryRequest(
            session_id=session.id,
            request_id=request.sandbox_boundary_request.request_id,
            decision=pb.SANDBOX_DECISION_ALLOW_ONCE,
        )
    )
    assert (answered.interaction.status, answered.interaction.decision) == (
        pb.INTERACTION_STATUS_ANSWERED,
        "allow_once",
    )
    rest = [response.event async for response in call]
    assert [e.text_delta.text for e in rest if kind(e) == "text_delta"] == [
        "approved: make deploy",
        "done",
    ]
    again = await failure(
        approver.RespondToSandboxBoundary(
            pb.RespondToSandboxBoundaryRequest(
                session_id=session.id,
                request_id=request.sandbox_boundary_request.request_id,
                decision=pb.SANDBOX_DECISION_DENY,
            )
        )
    )
    assert reason(again)[:2] == (grpc.StatusCode.ABORTED, "ALREADY_RESOLVED")


async def test_a_question_answer_and_a_message_sent_into_the_turn(server: Server) -> None:
    stub = server.stub()
    session = await create_session(stub)
    call = stub.StartTurn(
        pb.StartTurnRequest(session_id=session.id, turn_id="t1", text="/script ask which? | a | b")
    )
    [question] = await read_until(call, "user_question_request")
    other = server.stub()
    sent = await other.SendMessage(
        pb.SendMessageRequest(session_id=session.id, text="hurry up", turn_id="t1")
    )
    assert sent.turn_id == "t1" and sent.message_id
    await other.RespondToUserQuestion(
        pb.RespondToUserQuestionRequest(
            session_id=session.id,
            request_id=question.user_question_request.request_id,
            answers=["b"],
        )
    )
    rest = [response.event async for response in call]
    assert [e.text_delta.text for e in rest if kind(e) == "text_delta"] == [
        "answer: b",
        "received: hurry up",
    ]
    users = [e for e in await log_of(stub, session.id) if kind(e) == "user"]
    assert [(u.id, u.user.text, u.user.queued) for u in users][-1] == (
        sent.message_id,
        "hurry up",
        True,
    )


async def test_a_watcher_that_reconnects_sees_every_event_once(server: Server) -> None:
    stub = server.stub()
    session = await create_session(stub)
    first_channel = server.channel()
    watch = server.stub(first_channel).WatchSession(pb.WatchSessionRequest(session_id=session.id))
    call = stub.StartTurn(
        pb.StartTurnRequest(session_id=session.id, text="/script words 40; ask more?; words 40")
    )
    [*_, question] = await read_until(call, "user_question_request")
    seen = []
    async for response in watch:
        seen.append(response.event)
        if len(seen) == 25:
            break
    watch.cancel()
    await first_channel.close()
    resumed = server.stub().WatchSession(
        pb.WatchSessionRequest(session_id=session.id, after_seq=seen[-1].seq)
    )
    await server.stub().RespondToUserQuestion(
        pb.RespondToUserQuestionRequest(
            session_id=session.id,
            request_id=question.user_question_request.request_id,
            answers=["yes"],
        )
    )
    _ = [response async for response in call]
    total = len(await log_of(stub, session.id))
    async for response in resumed:
        seen.append(response.event)
        if len(seen) == total:
            break
    resumed.cancel()
    assert [e.seq for e in seen] == list(range(1, total + 1))
    assert seen == await log_of(stub, session.id)


async def test_busy_sessions_and_retried_starts(server: Server) -> None:
    stub = server.stub()
    session = await create_session(stub)
    text = "/script say one; ask q?"
    first = stub.StartTurn(pb.StartTurnRequest(session_id=session.id, turn_id="t1", text=text))
    events = await read_until(first, "user_question_request")
    busy = await failure(
        server.stub().StartTurn(pb.StartTurnRequest(session_id=session.id, text="hello"))
    )
    code, why, metadata = reason(busy)
    assert (code, why, metadata["active_turn_id"]) == (
        grpc.StatusCode.ABORTED,
        "SESSION_BUSY",
        "t1",
    )
    assert "t1" in (busy.details() or "")
    retry = server.stub().StartTurn(
        pb.StartTurnRequest(session_id=session.id, turn_id="t1", text=text)
    )
    assert await read_until(retry, "user_question_request") == events
    await stub.StopSession(pb.StopSessionRequest(session_id=session.id))
    assert [r.event async for r in first] == [r.event async for r in retry]


async def test_shutdown_drains_turns_and_refuses_new_ones(tmp_path: object) -> None:
    from pathlib import Path

    from .conftest import start_server, stop_server

    running = await start_server(Path(str(tmp_path)) / "data", shutdown_grace=0.2)
    try:
        stub = running.stub()
        polite = await create_session(stub)
        stubborn = await create_session(stub)
        polite_call = stub.StartTurn(
            pb.StartTurnRequest(session_id=polite.id, turn_id="p", text="/script ask q?; say x")
        )
        stubborn_call = stub.StartTurn(
            pb.StartTurnRequest(session_id=stubborn.id, turn_id="s", text="/script say a; hang")
        )
        await read_until(polite_call, "user_question_request")
        await read_until(stubborn_call, "text_delta")
        watch = running.stub().WatchSession(pb.WatchSessionRequest(session_id=polite.id))
        await read_until(watch, "user_question_request")
        # The first thing Shutdown does is stop admitting turns:
        running.kernel.begin_drain()
        refused = await failure(
            stub.StartTurn(pb.StartTurnRequest(session_id=polite.id, text="too late"))
        )
        assert reason(refused)[:2] == (grpc.StatusCode.UNAVAILABLE, "HOST_DRAINING")
        report = await running.stub().Shutdown(pb.ShutdownRequest())
        outcomes = {(t.session_id, t.turn_id): (t.outcome, t.failure) for t in report.turns}
        assert outcomes == {
            (polite.id, "p"): (pb.DRAIN_OUTCOME_STOPPED_AFTER_STEP, ""),
            (stubborn.id, "s"): (pb.DRAIN_OUTCOME_STOPPED_IMMEDIATELY, ""),
        }
        late = running.kernel.start_turn(polite.id, text="late")
        with pytest.raises(Exception, match="draining"):
            await anext(aiter(late))
        polite_rest = [r.event async for r in polite_call]
        stubborn_rest = [r.event async for r in stubborn_call]
        # The watcher ends cleanly once the drain has recorded everything (it is not left to
        # be cancelled by the server's stop).
        watched = [r.event async for r in watch]
        assert await watch.code() == grpc.StatusCode.OK
        assert [e.turn_state.abort_source for e in watched if kind(e) == "turn_state"] == [
            "host_shutdown"
        ]
        await asyncio.wait_for(running.stopped.wait(), 10)
    finally:
        await stop_server(running)

    for rest in (polite_rest, stubborn_rest):
        assert [
            (e.turn_state.status, e.turn_state.abort_source)
            for e in rest
            if kind(e) == "turn_state"
        ] == [(pb.TURN_STATUS_ABORTED, "host_shutdown")]
    # Everything is on the record: a new owner of the data finds nothing left to repair.
    async with reopened_store(running.data_dir) as store:
        sweep = await recover_interrupted(store, now=0)
        assert (sweep.interrupted_turns, sweep.sessions_updated, sweep.interactions_closed) == (
            (),
            (),
            (),
        )
        for session_id, turn_id in ((polite.id, "p"), (stubborn.id, "s")):
            assert (await store.read_header(session_id)).status == "aborted"
            [turn] = await store.list_turns(session_id)
            assert (turn.turn_id, turn.status, turn.abort_source) == (
                turn_id,
                "aborted",
                "host_shutdown",
            )
            messages = await store.read_messages(session_id)
            aborted = [m for m in messages if m.type == "turn_state" and m.status == "aborted"]
            notes = [m for m in messages if m.type == "system_note" and m.kind == "abort"]
            assert [m.abort_source for m in aborted] == ["host_shutdown"]
            assert [m.source for m in notes] == ["host_shutdown"]
        [question] = await store.list_interactions(polite.id)
        assert (question.status, question.reason) == ("closed", "turn_stopped")
