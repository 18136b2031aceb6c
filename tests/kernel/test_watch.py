"""Watching a session: replay from a sequence, then live; several watchers; reconnects."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from maka_runtime.kernel.core import InvalidRequestError, NotFoundError, SessionStore, SessionWatch
from maka_runtime.kernel.core.log.events import StoredMessage, UserQuestionRequest

from ..support.typed import last
from .harness import Harness, make_harness
from .test_kernel_turns import events_until


@pytest.fixture
async def harness(store: SessionStore) -> AsyncIterator[Harness]:
    h = make_harness(store)
    yield h
    await h.close()


async def take(watch: SessionWatch, count: int) -> list[StoredMessage]:
    return [await anext(watch) for _ in range(count)]


async def test_a_watcher_replays_then_follows_live_entries(harness: Harness) -> None:
    session = await harness.session()
    _ = [e async for e in harness.kernel.start_turn(session.id, text="/script say one")]
    stored = await harness.store.read_messages(session.id)
    watch = await harness.kernel.watch_session(session.id)
    assert await take(watch, len(stored)) == stored

    stream = harness.kernel.start_turn(session.id, text="/script say two; ask q?")
    pending = asyncio.ensure_future(take(watch, 4))
    question = last(await events_until(stream, "user_question_request"), UserQuestionRequest)
    live = await pending
    assert [e.type for e in live] == ["user", "turn_state", "text_delta", "assistant"]
    assert [e.seq for e in live] == list(range(len(stored) + 1, len(stored) + 5))
    assert (await anext(watch)) == question
    await harness.kernel.answer_user_question(session.id, question.request_id, ["a"])
    _ = [e async for e in stream]
    rest = await harness.store.read_messages(session.id, after_seq=question.seq)
    assert await take(watch, len(rest)) == rest


async def test_several_watchers_see_the_same_log(harness: Harness) -> None:
    session = await harness.session()
    watchers = [await harness.kernel.watch_session(session.id) for _ in range(3)]
    _ = [e async for e in harness.kernel.start_turn(session.id, text="/script words 20; tool t x")]
    stored = await harness.store.read_messages(session.id)
    seen = await asyncio.gather(*(take(w, len(stored)) for w in watchers))
    assert seen == [stored, stored, stored]


async def test_a_reconnecting_watcher_loses_and_duplicates_nothing(harness: Harness) -> None:
    session = await harness.session()
    stream = harness.kernel.start_turn(session.id, text="/script words 30; ask q?; words 30")
    question = last(await events_until(stream, "user_question_request"), UserQuestionRequest)
    first = await harness.kernel.watch_session(session.id)
    part_one = await take(first, 10)
    await first.aclose()
    second = await harness.kernel.watch_session(session.id, after_seq=part_one[-1].seq)
    part_two = await take(second, 10)
    await second.aclose()
    await harness.kernel.answer_user_question(session.id, question.request_id, ["go"])
    _ = [e async for e in stream]
    third = await harness.kernel.watch_session(session.id, after_seq=part_two[-1].seq)
    stored = await harness.store.read_messages(session.id)
    part_three = await take(third, len(stored) - 20)
    assert part_one + part_two + part_three == stored
    assert [e.seq for e in stored] == list(range(1, len(stored) + 1))


async def test_a_watcher_far_behind_the_ring_reads_older_entries_from_the_store(
    harness: Harness,
) -> None:
    session = await harness.session()
    watch = await harness.kernel.watch_session(session.id)
    _ = [e async for e in harness.kernel.start_turn(session.id, text="/script words 1500")]
    stored = await harness.store.read_messages(session.id)
    assert len(stored) > 1500
    assert await take(watch, len(stored)) == stored


async def test_a_watcher_thousands_of_small_entries_behind_reads_them_from_memory(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = await harness.session()
    watch = await harness.kernel.watch_session(session.id)
    assert await take(watch, 0) == []
    # 3,000 deltas: beyond the 1,024 entries the ring kept before, within its 1 MiB.
    _ = [e async for e in harness.kernel.start_turn(session.id, text="/script words 3000")]
    stored = await harness.store.read_messages(session.id)
    assert len(stored) > 3000

    async def refused(*args: object, **kwargs: object) -> list[StoredMessage]:
        raise AssertionError("a live reader 3,000 small entries behind went to the store")

    monkeypatch.setattr(harness.store, "read_messages", refused)
    assert await take(watch, len(stored)) == stored


async def test_watching_needs_a_session_and_ends_not_found_when_it_is_deleted(
    harness: Harness,
) -> None:
    with pytest.raises(NotFoundError):
        await harness.kernel.watch_session("nope")
    session = await harness.session()
    with pytest.raises(InvalidRequestError):
        await harness.kernel.watch_session(session.id, after_seq=-1)
    watch = await harness.kernel.watch_session(session.id)
    [start] = await take(watch, 1)
    assert start.type == "system_note"
    waiting = asyncio.ensure_future(anext(watch, None))
    await asyncio.sleep(0)
    await harness.kernel.delete_session(session.id)
    with pytest.raises(NotFoundError):
        await waiting
