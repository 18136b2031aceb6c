"""The kernel lists a session's interaction requests: oldest first, filtered, paged by count
and by bytes."""

from __future__ import annotations

import dataclasses

import pytest

from maka_runtime.kernel.core import InvalidRequestError, NotFoundError
from maka_runtime.kernel.core.log.events import SandboxBoundaryRequest, UserQuestionRequest
from maka_runtime.kernel.core.sizes import wire_size
from maka_runtime.kernel.core.store import InteractionRecord, Resolution
from maka_runtime.kernel.store.memory import MemorySessionStore

from .harness import make_harness


def record(session_id: str, request_id: str, created_at: int, command: str) -> InteractionRecord:
    return InteractionRecord(
        session_id=session_id,
        request_id=request_id,
        turn_id="t1",
        run_id="run-1",
        kind="sandbox_boundary",
        request=SandboxBoundaryRequest(turn_id="t1", request_id=request_id, command=command),
        created_at=created_at,
    )


async def test_pages_are_bounded_by_count_and_bytes_and_follow_on() -> None:
    store = MemorySessionStore()
    harness = make_harness(store)
    try:
        session = await harness.session()
        other = await harness.session()
        # Put out of order: the list is by creation, whatever the store's order.
        for request_id, created_at in (("c", 30), ("a", 10), ("b", 20)):
            await store.put_interaction(record(session.id, request_id, created_at, "x" * 4000))
        await store.put_interaction(record(other.id, "z", 5, "ls"))
        question = InteractionRecord(
            session_id=session.id,
            request_id="q",
            turn_id="t1",
            run_id="run-1",
            kind="user_question",
            request=UserQuestionRequest(turn_id="t1", request_id="q", question="why?"),
            created_at=40,
        )
        await store.put_interaction(question)
        answered = Resolution(status="answered", decision="allow_once")
        await store.resolve_interaction(session.id, "b", answered, 25)
        kernel = harness.kernel

        whole = await kernel.list_interactions(session.id)
        assert [r.request_id for r in whole.interactions] == ["a", "b", "c", "q"]
        assert not whole.next_page_token
        pending = await kernel.list_interactions(session.id, pending_only=True)
        assert [r.request_id for r in pending.interactions] == ["a", "c", "q"]

        # Two big requests do not fit the byte bound together: one a page, each page says so.
        one = wire_size(whole.interactions[0])
        kernel.limits = dataclasses.replace(kernel.limits, max_response_bytes=one + one // 2)
        seen: list[str] = []
        token = ""
        while True:
            page = await kernel.list_interactions(session.id, page_token=token)
            assert sum(wire_size(r) for r in page.interactions) <= one + one // 2
            seen += [r.request_id for r in page.interactions]
            token = page.next_page_token
            if not token:
                break
        assert seen == ["a", "b", "c", "q"]
        counted = await kernel.list_interactions(session.id, limit=2, pending_only=True)
        assert [r.request_id for r in counted.interactions] == ["a"]  # bytes bind first
        kernel.limits = dataclasses.replace(kernel.limits, max_response_bytes=10**7)
        counted = await kernel.list_interactions(session.id, limit=2, pending_only=True)
        assert [r.request_id for r in counted.interactions] == ["a", "c"]
        after = await kernel.list_interactions(
            session.id, limit=2, pending_only=True, page_token=counted.next_page_token
        )
        assert [r.request_id for r in after.interactions] == ["q"] and not after.next_page_token

        with pytest.raises(NotFoundError):
            await kernel.list_interactions("missing")
        with pytest.raises(InvalidRequestError):
            await kernel.list_interactions(session.id, limit=0)
        with pytest.raises(InvalidRequestError):
            await kernel.list_interactions(session.id, page_token="not-a-token")
    finally:
        await harness.close()
