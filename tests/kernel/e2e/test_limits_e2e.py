"""Bounded responses and inputs over the wire: every page fits a default client's 4 MiB, every
request string has a limit, a turn's message queue is bounded and emptied when the turn ends.

The channels are plain ``grpc.aio`` channels with the default 4 MiB receive limit: a response
over it would fail the call with RESOURCE_EXHAUSTED on the client side.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import pytest
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from .conftest import WORKSPACE, Server, create_session, failure, read_until, reason, start_server
from .conftest import stop_server as stop

DEFAULT_CLIENT_LIMIT = 4 * 1024 * 1024
PAGE_BYTES = 2 * 1024 * 1024
INVALID = grpc.StatusCode.INVALID_ARGUMENT


async def _big_turn(stub: Any, session_id: str, steps: int, size: int) -> None:
    """A turn whose log holds *steps* tool calls, each with ~3 x *size* bytes of text."""
    text = f"/script repeat {steps} tool bash {'x' * size}"
    async for _ in stub.StartTurn(pb.StartTurnRequest(session_id=session_id, text=text)):
        pass


async def test_read_messages_pages_fit_a_default_client(server: Server) -> None:
    stub = server.stub()
    session = await create_session(stub)
    # 40 tool steps x 3 entries x 60 KiB: about 7 MB of log, the size from the issue.
    await _big_turn(stub, session.id, 40, 60 * 1024)
    after, pages = 0, 0
    seen: list[int] = []
    while True:
        response = await stub.ReadMessages(
            pb.ReadMessagesRequest(session_id=session.id, after_seq=after)
        )
        if not response.events:
            break
        assert response.ByteSize() <= PAGE_BYTES < DEFAULT_CLIENT_LIMIT
        seen.extend(event.seq for event in response.events)
        after = response.events[-1].seq
        pages += 1
    assert pages > 1
    assert seen == list(range(1, seen[-1] + 1))  # every entry once, in order
    # Read on from the last seq: nothing more, and past it is OUT_OF_RANGE.
    error = await failure(
        stub.ReadMessages(pb.ReadMessagesRequest(session_id=session.id, after_seq=after + 1))
    )
    code, why, metadata = reason(error)
    assert (code, why) == (grpc.StatusCode.OUT_OF_RANGE, "OUT_OF_RANGE")
    assert metadata == {"field": "after_seq", "last_seq": str(after)}


async def test_list_sessions_pages_fit_a_default_client(server: Server) -> None:
    stub = server.stub()
    # 24 sessions with 250 KiB of backend options each: 6 MB for one default page of 50.
    options = {f"k{i}": "o" * (50 * 1024) for i in range(5)}
    created = {
        (await create_session(stub, backend_options=options, labels=["big"])).id for _ in range(24)
    }
    token, pages = "", 0
    listed: list[str] = []
    while True:
        response = await stub.ListSessions(
            pb.ListSessionsRequest(page_token=token, label="big", page_size=50)
        )
        assert response.ByteSize() <= PAGE_BYTES
        listed.extend(session.id for session in response.sessions)
        pages += 1
        token = response.next_page_token
        if not token:
            break
    assert pages > 1
    assert sorted(listed) == sorted(created)


async def test_list_turns_pages_fit_a_default_client(server: Server) -> None:
    stub = server.stub()
    session = await create_session(stub)
    # 80 turns of 60 KiB of text each: 4.8 MB of turns.
    for index in range(80):
        text = f"/script say {index} {'t' * (60 * 1024)}"
        async for _ in stub.StartTurn(pb.StartTurnRequest(session_id=session.id, text=text)):
            pass
    after, turns, pages = 0, [], 0
    while True:
        response = await stub.ListTurns(pb.ListTurnsRequest(session_id=session.id, after_seq=after))
        assert response.ByteSize() <= PAGE_BYTES
        turns.extend(response.turns)
        pages += 1
        after = response.next_after_seq
        if not after:
            break
    assert pages > 1
    assert [turn.text.split(" ")[2] for turn in turns] == [str(i) for i in range(80)]


async def test_every_request_string_has_a_limit(server: Server) -> None:
    stub = server.stub()
    session = await create_session(stub)
    huge = "m" * (2 * 1024 * 1024)
    cases: list[tuple[Any, str, int]] = [
        (
            stub.CreateSession(pb.CreateSessionRequest(workspace_root=WORKSPACE, model=huge)),
            "model",
            256,
        ),
        (
            stub.CreateSession(pb.CreateSessionRequest(workspace_root=WORKSPACE, name=huge)),
            "name",
            1024,
        ),
        (
            stub.CreateSession(pb.CreateSessionRequest(workspace_root="/" + "d" * 5000)),
            "workspace_root",
            4095,
        ),
        (
            stub.CreateSession(
                pb.CreateSessionRequest(workspace_root=WORKSPACE, llm_connection_slug=huge)
            ),
            "llm_connection_slug",
            128,
        ),
        (
            stub.CreateSession(
                pb.CreateSessionRequest(workspace_root=WORKSPACE, backend_options={"k": huge})
            ),
            "backend_options",
            64 * 1024,
        ),
        (
            stub.CreateSession(
                pb.CreateSessionRequest(workspace_root=WORKSPACE, labels=["l" * 65])
            ),
            "labels",
            64,
        ),
        (
            stub.UpdateSession(pb.UpdateSessionRequest(session_id=session.id, model=huge)),
            "model",
            256,
        ),
        (stub.ListSessions(pb.ListSessionsRequest(label=huge)), "label", 64),
        (stub.ListSessions(pb.ListSessionsRequest(page_token=huge)), "page_token", 1024),
        (
            stub.StartTurn(pb.StartTurnRequest(session_id=session.id, text=huge)),
            "text",
            64 * 1024,
        ),
        (
            stub.SendMessage(pb.SendMessageRequest(session_id=session.id, text=huge)),
            "text",
            64 * 1024,
        ),
        (
            stub.RespondToSandboxBoundary(
                pb.RespondToSandboxBoundaryRequest(
                    session_id=session.id,
                    request_id="r1",
                    decision=pb.SANDBOX_DECISION_DENY,
                    reason=huge,
                )
            ),
            "reason",
            4096,
        ),
        (
            stub.StopSession(pb.StopSessionRequest(session_id=session.id, source="s" * 65)),
            "source",
            64,
        ),
    ]
    for call, field, limit in cases:
        code, why, metadata = reason(await failure(call))
        assert (code, why) == (INVALID, "INVALID_REQUEST"), field
        assert metadata == {"field": field, "limit": str(limit)}, field


async def _hanging_turn(stub: Any, session_id: str, turn_id: str) -> Any:
    """A turn waiting for an answer: past its last step boundary, so what is sent into it
    stays queued (the question is the sentinel)."""
    call = stub.StartTurn(
        pb.StartTurnRequest(session_id=session_id, turn_id=turn_id, text="/script ask ready?")
    )
    await read_until(call, "user_question_request")
    return call


async def _rejections(stub: Any, session_id: str, count: int) -> list[pb.SessionEvent]:
    """Watch the log until *count* message_rejected notes (the sentinel of the turn's cleanup:
    a queued message is taken off the queue before its rejection is recorded)."""
    rejected = []
    async for response in stub.WatchSession(pb.WatchSessionRequest(session_id=session_id)):
        note = response.event
        if (
            note.WhichOneof("event") == "system_note"
            and note.system_note.kind == pb.SYSTEM_NOTE_KIND_MESSAGE_REJECTED
        ):
            rejected.append(note)
            if len(rejected) == count:
                return rejected
    pytest.fail("the watch ended early")


async def test_a_full_message_queue_is_resource_exhausted_and_emptied_when_the_turn_ends(
    tmp_path: Path,
) -> None:
    server = await start_server(
        tmp_path / "data", max_queued_messages=5, max_queued_bytes=128 * 1024
    )
    try:
        stub = server.stub()
        session = await create_session(stub)
        call = await _hanging_turn(stub, session.id, "t1")
        for index in range(5):
            await stub.SendMessage(pb.SendMessageRequest(session_id=session.id, text=f"m{index}"))
        error = await failure(
            stub.SendMessage(pb.SendMessageRequest(session_id=session.id, text="m5"))
        )
        code, why, metadata = reason(error)
        assert (code, why) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "MESSAGE_QUEUE_FULL")
        assert metadata == {"turn_id": "t1", "limit_name": "max_queued_messages", "limit": "5"}
        assert server.kernel.pending_messages() == (5, 10)
        await stub.StopSession(pb.StopSessionRequest(session_id=session.id))
        await _rejections(stub, session.id, 5)
        assert server.kernel.pending_messages() == (0, 0)
        call.cancel()
        # The next turn starts with an empty queue; bytes are bounded too.
        call = await _hanging_turn(stub, session.id, "t2")
        big = "b" * (60 * 1024)
        await stub.SendMessage(pb.SendMessageRequest(session_id=session.id, text=big))
        await stub.SendMessage(pb.SendMessageRequest(session_id=session.id, text=big))
        error = await failure(
            stub.SendMessage(pb.SendMessageRequest(session_id=session.id, text=big))
        )
        code, why, metadata = reason(error)
        assert (code, why) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "MESSAGE_QUEUE_FULL")
        assert metadata["limit_name"] == "max_queued_bytes"
        assert metadata["limit"] == str(128 * 1024)
        assert server.kernel.pending_messages() == (2, 120 * 1024)
        await stub.StopSession(pb.StopSessionRequest(session_id=session.id))
        # What was queued is on the record as rejected, nothing was lost silently.
        assert len(await _rejections(stub, session.id, 7)) == 7
        assert server.kernel.pending_messages() == (0, 0)
        call.cancel()
    finally:
        await stop(server)


@pytest.mark.parametrize(
    ("setting", "value"),
    [("max_queued_messages", 7), ("max_queued_bytes", 1048576), ("max_page_bytes", 1048576)],
)
def test_the_limits_are_settings(setting: str, value: int) -> None:
    from maka_runtime.kernel.server import parse_config

    flag = "--" + setting.replace("_", "-")
    assert getattr(parse_config([flag, str(value)]), setting) == value
    env = "MAKA_KERNEL_" + setting.upper()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(env, str(value))
        assert getattr(parse_config([]), setting) == value
    with pytest.raises(SystemExit):
        parse_config([flag, "0"])
