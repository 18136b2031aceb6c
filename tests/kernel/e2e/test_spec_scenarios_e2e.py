"""The spec scenarios that make sense over the wire, with the spec's fault-injecting backend
registered in the real server's backend registry."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import grpc
import pytest
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from maka_runtime.kernel.core import TurnStream

from ..fakes import BlockingBackend
from .conftest import Server, create_session, failure, kind, read_until, reason


def register(server: Server, **options: Any) -> list[BlockingBackend]:
    """Register the spec's backend as "fake": the first generation gets *options*, later ones
    behave (like the spec's "failed stop operation is not reused" fixture)."""
    built: list[BlockingBackend] = []

    def build(header: Any) -> BlockingBackend:
        backend = BlockingBackend(header.id, **(options if not built else {}))
        built.append(backend)
        return backend

    server.service.backends.register("fake", build)
    return built


async def log_of(server: Server, session_id: str) -> list[pb.SessionEvent]:
    response = await server.stub().ReadMessages(pb.ReadMessagesRequest(session_id=session_id))
    return list(response.events)


def count(events: list[pb.SessionEvent], *, aborted: bool = False, note: int = 0) -> int:
    if aborted:
        return sum(
            kind(e) == "turn_state" and e.turn_state.status == pb.TURN_STATUS_ABORTED
            for e in events
        )
    return sum(kind(e) == "system_note" and e.system_note.kind == note for e in events)


async def test_explicit_stop_and_a_cancelled_stream_share_one_backend_stop(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    stop_failure = RuntimeError("shared backend stop rejected")
    built = register(server, deferred_stop=True, stop_failure=stop_failure)
    abandoned: list[asyncio.Future[Any] | None] = []
    abandon_claimed = asyncio.Event()
    real_abandon = TurnStream.abandon

    def spy(stream: TurnStream) -> asyncio.Future[Any] | None:
        claim = real_abandon(stream)
        abandoned.append(claim)
        abandon_claimed.set()
        return claim

    monkeypatch.setattr(TurnStream, "abandon", spy)
    stub = server.stub()
    session = await create_session(stub, backend="fake")
    call = stub.StartTurn(pb.StartTurnRequest(session_id=session.id, text="start"))
    await read_until(call, "text_delta")
    stopping = asyncio.ensure_future(
        server.stub().StopSession(
            pb.StopSessionRequest(
                session_id=session.id, source="stop_button", mode=pb.STOP_MODE_AFTER_STEP
            )
        )
    )
    await built[0].stop_started.wait()
    call.cancel()
    # The server has seen the cancellation: the abandoned stream claimed its stop while the
    # explicit one is still pending in the backend.
    await abandon_claimed.wait()
    assert built[0].stop_calls == [{"reason": "user_stop", "mode": "after_step"}]
    built[0].release_stop()
    stop_error = await failure(stopping)
    code, why, _ = reason(stop_error)
    assert (code, why) == (grpc.StatusCode.INTERNAL, "INTERNAL_FAILURE")
    assert "shared backend stop rejected" in (stop_error.details() or "")
    [cleanup] = abandoned
    assert cleanup is not None
    with pytest.raises(RuntimeError) as cleanup_failure:
        await cleanup
    assert cleanup_failure.value is stop_failure
    assert built[0].stop_calls == [{"reason": "user_stop", "mode": "after_step"}]
    log = await log_of(server, session.id)
    assert count(log, aborted=True) == 1
    assert count(log, note=pb.SYSTEM_NOTE_KIND_ABORT) == 1
    errors = [
        e.system_note.text
        for e in log
        if kind(e) == "system_note" and e.system_note.kind == pb.SYSTEM_NOTE_KIND_ERROR
    ]
    assert [text for text in errors if "shared backend stop rejected" in text] == [
        "stop failed: shared backend stop rejected"
    ]


async def test_explicit_stop_reports_both_the_backend_and_the_durable_close_failure(
    server: Server,
) -> None:
    built = register(server, stop_failure=RuntimeError("backend stop rejected"))
    store: Any = server.service.store
    close_interactions = store.close_interactions

    async def failing_close(*args: Any) -> Any:
        raise RuntimeError("durable close rejected")

    stub = server.stub()
    session = await create_session(stub, backend="fake")
    call = stub.StartTurn(pb.StartTurnRequest(session_id=session.id, text="start"))
    await read_until(call, "text_delta")
    store.close_interactions = failing_close
    try:
        stopped = await failure(
            stub.StopSession(pb.StopSessionRequest(session_id=session.id, source="stop_button"))
        )
    finally:
        store.close_interactions = close_interactions
    code, why, metadata = reason(stopped)
    assert (code, why, metadata["causes"]) == (
        grpc.StatusCode.INTERNAL,
        "OWNER_CLEANUP_FAILED",
        "2",
    )
    details = stopped.details() or ""
    assert "backend stop rejected" in details
    assert "durable close rejected" in details
    assert "RuntimeInteractionFailStopError" in details
    assert len(built[0].stop_calls) == 1
    _ = [response async for response in call]
    log = await log_of(server, session.id)
    assert count(log, aborted=True) == 1
    assert count(log, note=pb.SYSTEM_NOTE_KIND_ABORT) == 1


async def test_a_failed_stop_disposes_the_backend_and_quarantines_until_settled(
    server: Server,
) -> None:
    built = register(
        server,
        stop_failure=RuntimeError("stop rejected without releasing send"),
        release_send_on_stop=False,
        release_send_on_dispose=False,
    )
    stub = server.stub()
    session = await create_session(stub, backend="fake")
    call = stub.StartTurn(pb.StartTurnRequest(session_id=session.id, turn_id="t1", text="go"))
    await read_until(call, "text_delta")
    for _ in range(2):
        refused = await failure(stub.StopSession(pb.StopSessionRequest(session_id=session.id)))
        assert refused.code() == grpc.StatusCode.INTERNAL
        assert "stop rejected without releasing send" in (refused.details() or "")
    assert len(built[0].stop_calls) == 1
    assert built[0].dispose_calls == 1
    log = await log_of(server, session.id)
    assert count(log, aborted=True) == 1
    assert count(log, note=pb.SYSTEM_NOTE_KIND_ABORT) == 1

    blocked = await failure(
        stub.StartTurn(pb.StartTurnRequest(session_id=session.id, text="must not send"))
    )
    code, why, metadata = reason(blocked)
    assert (code, why, metadata["permanent"]) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "SESSION_QUARANTINED",
        "false",
    )
    assert "quarantined" in (blocked.details() or "")
    assert built[0].send_calls == 1

    built[0].release_blocked_send()
    _ = [response async for response in call]
    again = stub.StartTurn(pb.StartTurnRequest(session_id=session.id, text="fresh backend"))
    await read_until(again, "text_delta")
    assert len(built) == 2
    await stub.StopSession(pb.StopSessionRequest(session_id=session.id))
    assert built[1].stop_calls == [{"reason": "user_stop", "mode": "immediate"}]
    _ = [response async for response in again]


async def test_a_failed_disposal_quarantines_the_session_for_good(server: Server) -> None:
    built = register(
        server,
        stop_failure=RuntimeError("backend stop failed"),
        dispose_failure=RuntimeError("backend disposal failed"),
        release_send_on_stop=False,
        release_send_on_dispose=False,
    )
    stub = server.stub()
    session = await create_session(stub, backend="fake")
    call = stub.StartTurn(pb.StartTurnRequest(session_id=session.id, text="go"))
    await read_until(call, "text_delta")
    stopped = await failure(stub.StopSession(pb.StopSessionRequest(session_id=session.id)))
    code, why, metadata = reason(stopped)
    assert (code, why, metadata["causes"]) == (
        grpc.StatusCode.INTERNAL,
        "OWNER_CLEANUP_FAILED",
        "2",
    )
    assert "backend stop failed" in (stopped.details() or "")
    assert "backend disposal failed" in (stopped.details() or "")
    header = (await stub.GetSession(pb.GetSessionRequest(session_id=session.id))).session
    assert header.status == pb.SESSION_STATUS_BLOCKED
    built[0].release_blocked_send()
    _ = [response async for response in call]
    for _ in range(2):
        refused = await failure(
            stub.StartTurn(pb.StartTurnRequest(session_id=session.id, text="x"))
        )
        code, why, metadata = reason(refused)
        assert (code, why, metadata["permanent"]) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "SESSION_QUARANTINED",
            "true",
        )
        assert "permanently quarantined" in (refused.details() or "")
    assert len(built) == 1 and built[0].dispose_calls == 1


async def test_an_abandoned_stream_whose_cleanup_fails_is_recorded(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    store: Any = server.service.store
    close_interactions = store.close_interactions
    close_failure = RuntimeError("durable close rejected")

    async def failing_close(*args: Any) -> Any:
        raise close_failure

    store.close_interactions = failing_close
    stub = server.stub()
    session = await create_session(stub)
    watch = server.stub().WatchSession(pb.WatchSessionRequest(session_id=session.id))
    call = stub.StartTurn(pb.StartTurnRequest(session_id=session.id, text="/script ask q?"))
    await read_until(call, "user_question_request")
    with caplog.at_level(logging.ERROR, logger="maka_runtime.kernel.core"):
        call.cancel()
        note = None
        async for response in watch:
            event = response.event
            if kind(event) == "system_note" and event.system_note.kind == 3:
                note = event.system_note
                break
    watch.cancel()
    store.close_interactions = close_interactions
    assert note is not None
    assert "interaction authority failed" in note.text
    assert "durable close rejected" in note.text
    assert any("durable close rejected" in r.getMessage() for r in caplog.records)
    log = await log_of(server, session.id)
    assert count(log, aborted=True) == 1
