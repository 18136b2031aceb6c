"""``--answer-timeout`` over the wire: an unanswered request fails closed and says why."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from .conftest import (
    Server,
    create_session,
    failure,
    kind,
    read_until,
    reason,
    start_server,
    stop_server,
)

TIMEOUT = 0.3
TIMEOUT_MS = int(TIMEOUT * 1000)


@pytest.fixture
async def timed_server(tmp_path: Path) -> AsyncIterator[Server]:
    running = await start_server(tmp_path / "data", answer_timeout=TIMEOUT)
    try:
        yield running
    finally:
        await stop_server(running)


async def test_an_unanswered_sandbox_boundary_request_is_denied_after_the_timeout(
    timed_server: Server,
) -> None:
    server = timed_server
    stub = server.stub()
    session = await create_session(stub)
    call = stub.StartTurn(
        pb.StartTurnRequest(
            session_id=session.id, turn_id="t1", text="/script approve push; say after"
        )
    )
    [*_, asked] = await read_until(call, "sandbox_boundary_request")
    request_id = asked.sandbox_boundary_request.request_id
    # Nobody answers. The sentinel is the resolution itself, streamed once it is recorded.
    [resolved] = await asyncio.wait_for(read_until(call, "interaction_resolved"), 10 * TIMEOUT)
    rest = [r.event async for r in call]

    expected_reason = f"timed_out: no answer within {TIMEOUT:g} s, denied"
    assert resolved.interaction_resolved.request_id == request_id
    assert (resolved.interaction_resolved.outcome, resolved.interaction_resolved.reason) == (
        pb.INTERACTION_OUTCOME_TIMED_OUT,
        expected_reason,
    )
    # Fails closed: the backend was told "deny", so the command never ran and the turn ended.
    assert [e.text_delta.text for e in rest if kind(e) == "text_delta"] == ["denied: push"]
    assert [e.complete.stop_reason for e in rest if kind(e) == "complete"] == ["denied"]
    assert [e.turn_state.status for e in rest if kind(e) == "turn_state"] == [
        pb.TURN_STATUS_COMPLETED
    ]

    store = server.service.store
    assert store is not None
    record = await store.get_interaction(session.id, request_id)
    assert record is not None
    assert (record.status, record.decision, record.reason) == ("timed_out", "deny", expected_reason)
    # Denied by the timer, not earlier (a little slack: wall clock against the loop's clock).
    assert record.resolved_at - record.created_at >= TIMEOUT_MS - 20
    log = (await stub.ReadMessages(pb.ReadMessagesRequest(session_id=session.id))).events
    resolutions = [e.interaction_resolved for e in log if kind(e) == "interaction_resolved"]
    assert [(r.request_id, r.outcome, r.reason) for r in resolutions] == [
        (request_id, pb.INTERACTION_OUTCOME_TIMED_OUT, expected_reason)
    ]

    late = await failure(
        stub.RespondToSandboxBoundary(
            pb.RespondToSandboxBoundaryRequest(
                session_id=session.id,
                request_id=request_id,
                decision=pb.SANDBOX_DECISION_ALLOW_ONCE,
            )
        )
    )
    code, why, metadata = reason(late)
    assert (code, why, metadata["status"]) == (
        grpc.StatusCode.ABORTED,
        "ALREADY_RESOLVED",
        "timed_out",
    )
    assert "no answer within" in (late.details() or "")
    after = await store.get_interaction(session.id, request_id)
    assert after == record
    header = (await stub.GetSession(pb.GetSessionRequest(session_id=session.id))).session
    assert header.status == pb.SESSION_STATUS_ACTIVE


async def test_an_answer_in_time_wins_over_the_timeout(timed_server: Server) -> None:
    server = timed_server
    stub = server.stub()
    session = await create_session(stub)
    call = stub.StartTurn(
        pb.StartTurnRequest(session_id=session.id, text="/script ask which? | a | b; say done")
    )
    [*_, asked] = await read_until(call, "user_question_request")
    request_id = asked.user_question_request.request_id
    await server.stub().RespondToUserQuestion(
        pb.RespondToUserQuestionRequest(session_id=session.id, request_id=request_id, answers=["a"])
    )
    rest = [r.event async for r in call]
    assert [e.text_delta.text for e in rest if kind(e) == "text_delta"] == ["answer: a", "done"]
    assert [e.interaction_resolved.outcome for e in rest if kind(e) == "interaction_resolved"] == [
        pb.INTERACTION_OUTCOME_ANSWERED
    ]
    store = server.service.store
    assert store is not None
    record = await store.get_interaction(session.id, request_id)
    assert record is not None and (record.status, record.answers) == ("answered", ("a",))
