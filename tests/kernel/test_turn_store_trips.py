"""What a short turn asks of the store: its opening entries and the header's ``running`` in one
write, no lookup of a turn id the kernel made itself (a retried start by its client's turn id
still finds the recorded turn). The close of a run's
interaction requests stays a durable store call even when the run made none: the spec's
scenario of a failing durable close (tests/kernel/e2e/test_spec_scenarios_e2e.py) reports it."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import pytest

from maka_runtime.kernel.core import SessionStore
from maka_runtime.kernel.core.log.events import UserQuestionRequest
from tests.support.typed import only

from .harness import Harness, make_harness


@pytest.fixture
async def harness(store: SessionStore) -> AsyncIterator[Harness]:
    h = make_harness(store)
    yield h
    await h.close()


def count_calls(store: Any, *names: str) -> Counter[str]:
    """Count the calls of the store methods *names* (the methods still run)."""
    calls: Counter[str] = Counter()
    for name in names:
        method = getattr(store, name)

        def counted(*args: Any, _name: str = name, _method: Any = method, **kwargs: Any) -> Any:
            calls[_name] += 1
            return _method(*args, **kwargs)

        setattr(store, name, counted)
    return calls


async def test_a_turn_without_a_client_turn_id_looks_up_no_turn_record(harness: Harness) -> None:
    session = await harness.session()
    calls = count_calls(harness.store, "get_turn")
    events = [e async for e in harness.kernel.start_turn(session.id, text="/script say hi")]
    assert events[-1].type == "turn_state"
    assert calls["get_turn"] == 0
    turn_id = events[-1].turn_id
    replay = [
        e async for e in harness.kernel.start_turn(session.id, turn_id, text="/script say hi")
    ]
    assert replay == events  # a start by that id again attaches to the record
    assert calls["get_turn"] == 1


async def test_a_turn_stopped_with_a_pending_question_still_closes_it(harness: Harness) -> None:
    session = await harness.session()
    calls = count_calls(harness.store, "close_interactions")
    stream = harness.kernel.start_turn(session.id, "t-q", text="/script ask Which? | a | b")
    async for event in stream:
        if event.type == "user_question_request":
            break
    request_id = only(event, UserQuestionRequest).request_id
    outcome = await asyncio.wait_for(
        harness.kernel.stop_session(session.id, source="stop_button"), 30
    )
    assert outcome.turn_id == "t-q"
    assert [e async for e in stream][-1].type == "turn_state"
    assert calls["close_interactions"] == 1
    [record] = await harness.store.list_interactions(session.id)
    assert (record.request_id, record.status) == (request_id, "closed")


class StoreWrites:
    """Records every append (its entry types and header patch) and every header update made
    outside an append (the memory store's combined write goes through ``update_header``)."""

    def __init__(self, store: Any) -> None:
        self.appends: list[tuple[list[str], Any]] = []
        self.separate: list[Any] = []
        self._inside = False
        self._append, self._update = store.append_messages, store.update_header
        store.append_messages = self.append_messages
        store.update_header = self.update_header

    async def append_messages(self, session_id: str, messages: Any, **options: Any) -> Any:
        self.appends.append(([m.type for m in messages], options.get("header")))
        self._inside = True
        try:
            return await self._append(session_id, messages, **options)
        finally:
            self._inside = False

    async def update_header(self, session_id: str, patch: Any) -> Any:
        if not self._inside:
            self.separate.append(patch)
        return await self._update(session_id, patch)

    def separate_statuses(self) -> list[str]:
        return [patch["status"] for patch in self.separate if "status" in patch]


async def watched(harness: Harness) -> tuple[str, Any, StoreWrites]:
    """A new session's id, the store, and the record of its writes from now on."""
    session = await harness.session()
    return session.id, harness.store, StoreWrites(harness.store)


async def test_a_turn_begins_with_one_write_of_its_entries_and_the_running_header(
    harness: Harness,
) -> None:
    session_id, store, writes = await watched(harness)
    stream = harness.kernel.start_turn(session_id, "t1", text="/script say hi; hang")
    await anext(stream)
    # The header says "running" as soon as the turn's first event can be read ...
    assert (await store.read_header(session_id)).status == "running"
    # ... because one write carried it with the opening entries.
    types, header = writes.appends[0]
    assert types == ["user", "turn_state"]
    assert header is not None and header["status"] == "running"
    await asyncio.wait_for(harness.kernel.stop_session(session_id, source="stop_button"), 30)
    assert [e async for e in stream][-1].type == "turn_state"
    assert (await store.read_header(session_id)).status == "aborted"
    # The stop's end went with its header too: no header update of its own.
    types, header = writes.appends[-1]
    assert "turn_state" in types and header is not None and header["status"] == "aborted"
    assert writes.separate_statuses() == []


async def test_a_turn_ends_with_one_write_of_its_end_and_the_active_header(
    harness: Harness,
) -> None:
    session_id, store, writes = await watched(harness)
    events = [e async for e in harness.kernel.start_turn(session_id, text="/script say hi")]
    assert events[-1].type == "turn_state"
    types, header = writes.appends[-1]
    assert types == ["turn_state"]
    assert header is not None and (header["status"], header["has_unread"]) == ("active", True)
    assert writes.separate_statuses() == []
    stored = await store.read_header(session_id)
    assert (stored.status, stored.has_unread) == ("active", True)
