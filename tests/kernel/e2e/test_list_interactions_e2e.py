"""ListInteractions over gRPC: a session's requests, pending and resolved, paged and filtered."""

from __future__ import annotations

import grpc
from maka_runtime_proto.kernel.v1 import kernel_pb2 as pb

from .conftest import Server, create_session, failure, kind, read_until, reason


async def test_requests_are_listed_oldest_first_with_their_ends_and_paged(server: Server) -> None:
    stub = server.stub()
    session = await create_session(stub)
    first = stub.StartTurn(
        pb.StartTurnRequest(session_id=session.id, turn_id="t1", text="/script approve one")
    )
    [*_, asked] = await read_until(first, "sandbox_boundary_request")
    one = asked.sandbox_boundary_request.request_id
    await stub.RespondToSandboxBoundary(
        pb.RespondToSandboxBoundaryRequest(
            session_id=session.id, request_id=one, decision=pb.SANDBOX_DECISION_DENY
        )
    )
    _ = [r async for r in first]
    second = stub.StartTurn(
        pb.StartTurnRequest(session_id=session.id, turn_id="t2", text="/script approve two")
    )
    [*_, asked] = await read_until(second, "sandbox_boundary_request")
    two = asked.sandbox_boundary_request.request_id

    pending = await stub.ListInteractions(
        pb.ListInteractionsRequest(session_id=session.id, pending_only=True)
    )
    assert [(i.request_id, i.turn_id, i.status) for i in pending.interactions] == [
        (two, "t2", pb.INTERACTION_STATUS_PENDING)
    ]
    assert pending.interactions[0].WhichOneof("request") == "sandbox_boundary_request"
    assert pending.interactions[0].sandbox_boundary_request.command == "two"
    assert not pending.next_page_token

    await stub.StopSession(pb.StopSessionRequest(session_id=session.id, source="test"))
    _ = [r async for r in second]

    page = await stub.ListInteractions(pb.ListInteractionsRequest(session_id=session.id, limit=1))
    assert [i.request_id for i in page.interactions] == [one] and page.next_page_token
    denied = page.interactions[0]
    assert (denied.kind, denied.status, denied.decision, denied.outcome) == (
        pb.INTERACTION_KIND_SANDBOX_BOUNDARY,
        pb.INTERACTION_STATUS_ANSWERED,
        "deny",
        pb.INTERACTION_OUTCOME_DENY,
    )
    rest = await stub.ListInteractions(
        pb.ListInteractionsRequest(session_id=session.id, limit=1, page_token=page.next_page_token)
    )
    assert not rest.next_page_token
    [closed] = rest.interactions
    assert (closed.request_id, closed.status, closed.outcome, closed.reason) == (
        two,
        pb.INTERACTION_STATUS_CLOSED,
        pb.INTERACTION_OUTCOME_CLOSED,
        "turn_stopped",
    )
    # What the list says is what the log says.
    log = (await stub.ReadMessages(pb.ReadMessagesRequest(session_id=session.id))).events
    ends = [e.interaction_resolved for e in log if kind(e) == "interaction_resolved"]
    assert [(r.request_id, r.outcome, r.reason) for r in ends] == [
        (i.request_id, i.outcome, i.reason) for i in (denied, closed)
    ]
    assert not (
        await stub.ListInteractions(
            pb.ListInteractionsRequest(session_id=session.id, pending_only=True)
        )
    ).interactions


async def test_an_unknown_session_or_a_bad_token_or_limit_is_refused(server: Server) -> None:
    stub = server.stub()
    session = await create_session(stub)
    missing = await failure(stub.ListInteractions(pb.ListInteractionsRequest(session_id="nope")))
    assert reason(missing)[0] == grpc.StatusCode.NOT_FOUND
    for bad, field in (
        (pb.ListInteractionsRequest(session_id=session.id, page_token="garbage"), "page_token"),
        (pb.ListInteractionsRequest(session_id=session.id, limit=-1), "limit"),
        (pb.ListInteractionsRequest(session_id=session.id, limit=100_000), "limit"),
        (pb.ListInteractionsRequest(), "session_id"),
    ):
        refused = await failure(stub.ListInteractions(bad))
        code, why, metadata = reason(refused)
        assert (code, why, metadata.get("field")) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_REQUEST",
            field,
        )
    # A session's token is not an interaction token.
    await create_session(stub)
    sessions = await stub.ListSessions(pb.ListSessionsRequest(page_size=1))
    assert sessions.next_page_token
    foreign = await failure(
        stub.ListInteractions(
            pb.ListInteractionsRequest(session_id=session.id, page_token=sessions.next_page_token)
        )
    )
    assert reason(foreign)[:2] == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")
    empty = await stub.ListInteractions(pb.ListInteractionsRequest(session_id=session.id))
    assert list(empty.interactions) == [] and not empty.next_page_token
