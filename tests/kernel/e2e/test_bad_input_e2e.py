"""Bad input over the wire: a clear status and ErrorInfo, and nothing written."""

from __future__ import annotations

from typing import Any

import grpc
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from .conftest import WORKSPACE, Server, create_session, database, failure, kind, read_until, reason

INVALID = grpc.StatusCode.INVALID_ARGUMENT
NOT_FOUND = (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")


async def refused_all(cases: list[tuple[Any, tuple[grpc.StatusCode, str], str]]) -> None:
    for call, expected, field in cases:
        error = await failure(call)
        code, why, metadata = reason(error)
        assert (code, why) == expected, error.details()
        assert metadata.get("field", "") == field, error.details()
        assert error.details()


async def test_bad_requests_get_a_clear_status_and_write_nothing(server: Server) -> None:
    stub = server.stub()
    session = await create_session(stub)
    before = await database(server)
    assert before["sessions"] and before["messages"]
    cases: list[tuple[Any, tuple[grpc.StatusCode, str], str]] = [
        (
            stub.GetSession(pb.GetSessionRequest(session_id="nope")),
            (grpc.StatusCode.NOT_FOUND, "NOT_FOUND"),
            "",
        ),
        (
            stub.StartTurn(pb.StartTurnRequest(session_id="nope", text="hello")),
            (grpc.StatusCode.NOT_FOUND, "NOT_FOUND"),
            "",
        ),
        (
            stub.StartTurn(pb.StartTurnRequest(session_id=session.id, text="")),
            (INVALID, "INVALID_REQUEST"),
            "text",
        ),
        (
            stub.StartTurn(pb.StartTurnRequest(session_id=session.id, text=" \n\t")),
            (INVALID, "INVALID_REQUEST"),
            "text",
        ),
        (
            stub.StartTurn(pb.StartTurnRequest(session_id=session.id, text="x" * (64 * 1024 + 1))),
            (INVALID, "INVALID_REQUEST"),
            "text",
        ),
        (
            stub.StartTurn(
                pb.StartTurnRequest(session_id=session.id, turn_id="no spaces", text="hi")
            ),
            (INVALID, "INVALID_REQUEST"),
            "turn_id",
        ),
        (
            stub.StopSession(pb.StopSessionRequest(session_id=session.id, mode=99)),  # type: ignore[arg-type]
            (INVALID, "INVALID_REQUEST"),
            "mode",
        ),
        (
            stub.StopSession(pb.StopSessionRequest(session_id=session.id, source="Big Red Button")),
            (INVALID, "INVALID_REQUEST"),
            "source",
        ),
        (
            stub.StopSession(pb.StopSessionRequest(session_id="nope")),
            (grpc.StatusCode.NOT_FOUND, "NOT_FOUND"),
            "",
        ),
        (
            stub.RespondToSandboxBoundary(
                pb.RespondToSandboxBoundaryRequest(
                    session_id="nope", request_id="unknown", decision=pb.SANDBOX_DECISION_DENY
                )
            ),
            NOT_FOUND,
            "",
        ),
        (
            stub.RespondToUserQuestion(
                pb.RespondToUserQuestionRequest(session_id="nope", request_id="r", answers=["y"])
            ),
            NOT_FOUND,
            "",
        ),
        (stub.SendMessage(pb.SendMessageRequest(session_id="nope", text="hi")), NOT_FOUND, ""),
        (
            stub.UpdateSession(pb.UpdateSessionRequest(session_id="nope", name="x")),
            NOT_FOUND,
            "",
        ),
        (stub.DeleteSession(pb.DeleteSessionRequest(session_id="nope")), NOT_FOUND, ""),
        (stub.ReadMessages(pb.ReadMessagesRequest(session_id="nope")), NOT_FOUND, ""),
        (
            stub.ReadMessages(pb.ReadMessagesRequest(session_id=session.id, after_seq=-1)),
            (INVALID, "INVALID_REQUEST"),
            "after_seq",
        ),
        (
            stub.RespondToSandboxBoundary(
                pb.RespondToSandboxBoundaryRequest(
                    session_id=session.id, request_id="unknown", decision=pb.SANDBOX_DECISION_DENY
                )
            ),
            (grpc.StatusCode.NOT_FOUND, "NOT_FOUND"),
            "",
        ),
        (
            stub.RespondToSandboxBoundary(
                pb.RespondToSandboxBoundaryRequest(session_id=session.id, request_id="unknown")
            ),
            (INVALID, "INVALID_REQUEST"),
            "decision",
        ),
        (
            stub.RespondToUserQuestion(
                pb.RespondToUserQuestionRequest(session_id=session.id, request_id="unknown")
            ),
            (INVALID, "INVALID_REQUEST"),
            "answers",
        ),
        (
            stub.RespondToUserQuestion(
                pb.RespondToUserQuestionRequest(
                    session_id=session.id, request_id="unknown", answers=["yes"]
                )
            ),
            (grpc.StatusCode.NOT_FOUND, "NOT_FOUND"),
            "",
        ),
        (
            stub.SendMessage(pb.SendMessageRequest(session_id=session.id, text="anyone?")),
            (grpc.StatusCode.ABORTED, "OPERATION_CONFLICT"),
            "",
        ),
        (
            stub.WatchSession(pb.WatchSessionRequest(session_id="nope")),
            (grpc.StatusCode.NOT_FOUND, "NOT_FOUND"),
            "",
        ),
        (
            stub.ReadMessages(pb.ReadMessagesRequest(session_id=session.id, limit=5000)),
            (INVALID, "INVALID_REQUEST"),
            "limit",
        ),
        (
            stub.CreateSession(pb.CreateSessionRequest(workspace_root="relative/path")),
            (INVALID, "INVALID_REQUEST"),
            "workspace_root",
        ),
        (
            stub.CreateSession(
                pb.CreateSessionRequest(workspace_root=WORKSPACE, backend="quantum")
            ),
            (INVALID, "INVALID_REQUEST"),
            "backend",
        ),
        (
            stub.CreateSession(
                pb.CreateSessionRequest(workspace_root=WORKSPACE, permission_mode=42)  # type: ignore[arg-type]
            ),
            (INVALID, "INVALID_REQUEST"),
            "permission_mode",
        ),
        (
            stub.CreateSession(
                pb.CreateSessionRequest(workspace_root=WORKSPACE, session_id=session.id)
            ),
            (grpc.StatusCode.ALREADY_EXISTS, "ALREADY_EXISTS"),
            "",
        ),
        (
            stub.ListSessions(pb.ListSessionsRequest(page_size=100_000)),
            (INVALID, "INVALID_REQUEST"),
            "page_size",
        ),
        (
            stub.ListSessions(pb.ListSessionsRequest(page_token="garbage!")),
            (INVALID, "INVALID_REQUEST"),
            "page_token",
        ),
    ]
    await refused_all(cases)
    assert await database(server) == before


async def test_bad_requests_against_a_running_turn_write_nothing_and_leave_it_running(
    server: Server,
) -> None:
    stub = server.stub()
    session = await create_session(stub)
    call = stub.StartTurn(
        pb.StartTurnRequest(
            session_id=session.id, turn_id="t1", text="/script ask pick | red | blue; say done"
        )
    )
    [*_, asked] = await read_until(call, "user_question_request")
    question = asked.user_question_request.request_id
    # The turn now waits for an answer and writes nothing by itself.
    before = await database(server)
    other = server.stub()
    await refused_all(
        [
            (
                other.StopSession(pb.StopSessionRequest(session_id=session.id, mode=7)),  # type: ignore[arg-type]
                (INVALID, "INVALID_REQUEST"),
                "mode",
            ),
            (
                other.StartTurn(pb.StartTurnRequest(session_id=session.id, text="")),
                (INVALID, "INVALID_REQUEST"),
                "text",
            ),
            (
                other.StartTurn(
                    pb.StartTurnRequest(session_id=session.id, turn_id="t1", text="other text")
                ),
                (grpc.StatusCode.ABORTED, "OPERATION_CONFLICT"),
                "",
            ),
            (
                other.RespondToUserQuestion(
                    pb.RespondToUserQuestionRequest(
                        session_id=session.id, request_id="unknown", answers=["red"]
                    )
                ),
                NOT_FOUND,
                "",
            ),
            (
                other.RespondToUserQuestion(
                    pb.RespondToUserQuestionRequest(
                        session_id=session.id, request_id=question, answers=["green"]
                    )
                ),
                (INVALID, "INVALID_REQUEST"),
                "answers",
            ),
            (
                other.RespondToSandboxBoundary(
                    pb.RespondToSandboxBoundaryRequest(
                        session_id=session.id,
                        request_id=question,
                        decision=pb.SANDBOX_DECISION_ALLOW_ONCE,
                    )
                ),
                (INVALID, "INVALID_REQUEST"),
                "request_id",
            ),
            (
                other.SendMessage(pb.SendMessageRequest(session_id=session.id, text="")),
                (INVALID, "INVALID_REQUEST"),
                "text",
            ),
            (
                other.SendMessage(
                    pb.SendMessageRequest(session_id=session.id, text="y" * (64 * 1024 + 1))
                ),
                (INVALID, "INVALID_REQUEST"),
                "text",
            ),
            (
                other.SendMessage(
                    pb.SendMessageRequest(session_id=session.id, text="hi", turn_id="t2")
                ),
                (grpc.StatusCode.ABORTED, "OPERATION_CONFLICT"),
                "",
            ),
        ]
    )
    assert await database(server) == before
    assert server.kernel.active_turn(session.id) == "t1"
    # The turn is untouched: it still takes its answer and completes.
    await other.RespondToUserQuestion(
        pb.RespondToUserQuestionRequest(session_id=session.id, request_id=question, answers=["red"])
    )
    rest = [r.event async for r in call]
    assert [e.text_delta.text for e in rest if kind(e) == "text_delta"] == ["answer: red", "done"]
    assert [e.turn_state.status for e in rest if kind(e) == "turn_state"] == [
        pb.TURN_STATUS_COMPLETED
    ]


async def test_answering_a_request_twice_and_an_archived_session(server: Server) -> None:
    stub = server.stub()
    session = await create_session(stub)
    call = stub.StartTurn(pb.StartTurnRequest(session_id=session.id, text="/script ask q?"))
    [question] = await read_until(call, "user_question_request")
    request = pb.RespondToUserQuestionRequest(
        session_id=session.id, request_id=question.user_question_request.request_id, answers=["a"]
    )
    await stub.RespondToUserQuestion(request)
    error = await failure(stub.RespondToUserQuestion(request))
    assert reason(error)[:2] == (grpc.StatusCode.ABORTED, "ALREADY_RESOLVED")
    _ = [r async for r in call]
    await stub.UpdateSession(pb.UpdateSessionRequest(session_id=session.id, archived=True))
    error = await failure(stub.StartTurn(pb.StartTurnRequest(session_id=session.id, text="hi")))
    assert reason(error)[:2] == (grpc.StatusCode.FAILED_PRECONDITION, "SESSION_ARCHIVED")


async def test_session_crud_with_paging_and_filters(server: Server) -> None:
    stub = server.stub()
    created = [
        await create_session(stub, name=f"s{i}", labels=["odd"] if i % 2 else []) for i in range(5)
    ]
    ids: list[str] = []
    token = ""
    while True:
        page = await stub.ListSessions(pb.ListSessionsRequest(page_size=2, page_token=token))
        ids += [s.id for s in page.sessions]
        token = page.next_page_token
        if not token:
            break
    assert sorted(ids) == sorted(s.id for s in created) and len(ids) == 5
    odd = await stub.ListSessions(pb.ListSessionsRequest(label="odd"))
    assert sorted(s.name for s in odd.sessions) == ["s1", "s3"]
    updated = await stub.UpdateSession(
        pb.UpdateSessionRequest(
            session_id=created[0].id,
            name="renamed",
            flagged=True,
            labels=pb.Labels(values=["x"]),
            permission_mode=pb.PERMISSION_MODE_BYPASS,
            archived=True,
        )
    )
    s = updated.session
    assert (s.name, s.title_is_manual, s.flagged, list(s.labels), s.archived) == (
        "renamed",
        True,
        True,
        ["x"],
        True,
    )
    assert s.permission_mode == pb.PERMISSION_MODE_BYPASS
    archived = await stub.ListSessions(pb.ListSessionsRequest(archived=True))
    assert [x.id for x in archived.sessions] == [created[0].id]
    await stub.DeleteSession(pb.DeleteSessionRequest(session_id=created[0].id))
    gone = await failure(stub.GetSession(pb.GetSessionRequest(session_id=created[0].id)))
    assert reason(gone)[:2] == (grpc.StatusCode.NOT_FOUND, "NOT_FOUND")
