"""A crash inside one request: INTERNAL / INTERNAL_FAILURE, logged once, and the server goes on."""

from __future__ import annotations

import logging
from typing import Any

import grpc
import pytest
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from maka_runtime.kernel.api import convert

from .conftest import Server, create_session, failure, kind, reason


class Bug(Exception):
    """Stands for a programming error deep inside a call."""


def api_errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "maka.kernel.api" and r.levelno >= logging.ERROR]


async def test_a_crash_in_a_unary_call_is_internal_and_the_server_keeps_serving(
    server: Server, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    stub = server.stub()
    session = await create_session(stub)
    real = server.kernel.session_now  # GetSession asks it first
    crashes = 0

    def crash_once(session_id: str) -> Any:
        nonlocal crashes
        if crashes == 0:
            crashes += 1
            raise Bug("invariant broken while reading a header")
        return real(session_id)

    monkeypatch.setattr(server.kernel, "session_now", crash_once)
    with caplog.at_level(logging.ERROR, logger="maka.kernel.api"):
        crashed = await failure(stub.GetSession(pb.GetSessionRequest(session_id=session.id)))
    assert reason(crashed)[:2] == (grpc.StatusCode.INTERNAL, "INTERNAL_FAILURE")
    assert "Bug: invariant broken while reading a header" in (crashed.details() or "")
    [logged] = api_errors(caplog)
    assert logged.exc_info is not None and isinstance(logged.exc_info[1], Bug)

    # The same channel, the same method, and a whole turn still work.
    header = (await stub.GetSession(pb.GetSessionRequest(session_id=session.id))).session
    assert header.id == session.id
    events = [
        r.event async for r in stub.StartTurn(pb.StartTurnRequest(session_id=session.id, text="hi"))
    ]
    assert [kind(e) for e in events] == ["text_delta", "complete", "turn_state"]


async def test_a_crash_in_the_middle_of_a_turn_stream_stops_the_turn_on_the_record(
    server: Server, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    stub = server.stub()
    session = await create_session(stub)
    real = convert.event_to_proto

    def crash_on_tool_calls(entry: Any) -> pb.SessionEvent:
        if entry.type == "tool_call":
            raise Bug("cannot convert a tool call")
        return real(entry)

    monkeypatch.setattr(convert, "event_to_proto", crash_on_tool_calls)
    with caplog.at_level(logging.ERROR, logger="maka.kernel.api"):
        call = stub.StartTurn(
            pb.StartTurnRequest(
                session_id=session.id, turn_id="t1", text="/script say a; tool bash ls; hang"
            )
        )
        crashed = await failure(call)
        monkeypatch.setattr(convert, "event_to_proto", real)
        assert reason(crashed)[:2] == (grpc.StatusCode.INTERNAL, "INTERNAL_FAILURE")
        assert "cannot convert a tool call" in (crashed.details() or "")
        # Nobody reads the turn any more: it is the abandoned consumer, stopped on the record.
        watch = server.stub().WatchSession(pb.WatchSessionRequest(session_id=session.id))
        aborted = None
        async for response in watch:
            event = response.event
            if kind(event) == "turn_state" and event.turn_state.status == pb.TURN_STATUS_ABORTED:
                aborted = event
                break
        watch.cancel()
    assert aborted is not None and aborted.turn_state.abort_source == "stream_abandoned"
    assert len(api_errors(caplog)) == 1

    turns = (await stub.ListTurns(pb.ListTurnsRequest(session_id=session.id))).turns
    assert [(t.turn_id, t.status) for t in turns] == [("t1", pb.TURN_STATUS_ABORTED)]
    events = [
        r.event
        async for r in stub.StartTurn(pb.StartTurnRequest(session_id=session.id, text="again"))
    ]
    assert [kind(e) for e in events] == ["text_delta", "complete", "turn_state"]
