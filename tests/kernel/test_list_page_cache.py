"""ListSessions pages kept in memory (maka_runtime.kernel.core.session_pages): a query asked
again is answered without the store while nothing it shows has changed, never after a write
that may have changed it was acknowledged, and never to a caller who lists other sessions."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from maka_runtime.common.principal import ADMIN, CLIENT, Principal, acting_as
from maka_runtime.kernel.core import SessionPage, SessionQuery, SessionStore, SessionUpdate
from maka_runtime.kernel.core.log.events import SystemNote
from maka_runtime.kernel.core.session_pages import SessionPages
from maka_runtime.kernel.core.validation import KernelLimits
from maka_runtime.kernel.server import parse_config
from tests.support.counting import count_calls

from .harness import Harness, make_harness

ALICE = Principal("alice", frozenset({CLIENT}))
ALICE_ADMIN = Principal("alice", frozenset({ADMIN, CLIENT}))
BOB = Principal("bob", frozenset({CLIENT}))


@pytest.fixture
async def harness(store: SessionStore) -> AsyncIterator[Harness]:
    h = make_harness(store)
    yield h
    await h.close()


async def listed(harness: Harness, **query: Any) -> SessionPage:
    return await harness.kernel.list_sessions(SessionQuery(**query))


def names(page: SessionPage) -> list[str]:
    return [h.name for h in page.sessions]


async def test_a_query_asked_again_is_answered_without_the_store(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("one", "two"):
        await harness.session(name=name)
    reads = count_calls(monkeypatch, harness.store, "list_sessions")
    first = await listed(harness, page_size=20)
    again = await listed(harness, page_size=20)
    assert again is first and names(first) == ["two", "one"] and len(reads) == 1
    other = await listed(harness, page_size=1)  # another query: a page of its own
    assert names(other) == ["two"] and other.next_page_token and len(reads) == 2
    assert await listed(harness, page_size=1) is other and len(reads) == 2


async def test_a_kept_page_is_answered_without_awaiting_only_while_it_is_right(
    harness: Harness,
) -> None:
    kernel = harness.kernel
    with acting_as(ALICE):
        await harness.session(name="one")
        assert kernel.sessions_page_now(None, None, 20, "") is None  # nothing kept yet
        first = await listed(harness, page_size=20)
        assert kernel.sessions_page_now(None, None, 20, "") is first
        # Another query, another page: none kept for it.
        assert kernel.sessions_page_now(None, None, 19, "") is None
        assert kernel.sessions_page_now(False, None, 20, "") is None
        assert kernel.sessions_page_now(None, "x", 20, "") is None
    with acting_as(BOB):  # lists other sessions: never the page kept for alice
        assert kernel.sessions_page_now(None, None, 20, "") is None
    with acting_as(ALICE):
        await harness.session(name="two")  # a write that may change the page
        assert kernel.sessions_page_now(None, None, 20, "") is None
        assert names(await listed(harness, page_size=20)) == ["two", "one"]


async def test_every_write_that_changes_a_listed_session_is_seen_at_once(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = await harness.session(name="one")
    reads = count_calls(monkeypatch, harness.store, "list_sessions")
    assert names(await listed(harness)) == ["one"]
    two = await harness.session(name="two")  # created
    assert names(await listed(harness)) == ["two", "one"]
    await harness.kernel.update_session(one.id, SessionUpdate(name="renamed"))  # updated
    assert names(await listed(harness)) == ["two", "renamed"]
    await harness.kernel.update_session(two.id, SessionUpdate(archived=True))  # archived
    assert names(await listed(harness, archived=False)) == ["renamed"]
    assert names(await listed(harness, archived=True)) == ["two"]
    await harness.kernel.delete_session(one.id)  # deleted
    assert names(await listed(harness)) == ["two"]
    assert len(reads) == 6  # every page after a write was read again


async def test_a_turn_s_header_updates_are_seen_and_its_appends_keep_the_page(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = await harness.session(name="busy")
    before = await listed(harness)
    # An append moves only the log, nothing a page shows: the page is kept.
    note = SystemNote(kind="session_resume", text="note", id="n1", ts=2_000)
    await harness.store.append_messages(session.id, [note])
    assert await listed(harness) is before
    async for _ in harness.kernel.start_turn(session.id, "t1", text="/script say hi"):
        pass
    reads = count_calls(monkeypatch, harness.store, "list_sessions")
    after = await listed(harness)
    now = await harness.kernel.get_session(session.id)
    assert after.sessions == (now,) and now != before.sessions[0] and len(reads) == 1


async def test_a_turn_s_opening_commit_moves_the_listed_status_with_it(harness: Harness) -> None:
    """The header's ``running`` rides on the turn's opening append: a page kept from before
    the turn is not served once its first event can be read."""
    session = await harness.session(name="opening")
    assert [h.status for h in (await listed(harness)).sessions] == ["active"]
    stream = harness.kernel.start_turn(session.id, "t1", text="/script say hi; hang")
    await anext(stream)
    assert [h.status for h in (await listed(harness)).sessions] == ["running"]
    await harness.kernel.stop_session(session.id, source="stop_button")
    assert [e async for e in stream][-1].type == "turn_state"
    assert [h.status for h in (await listed(harness)).sessions] == ["aborted"]


async def test_a_read_that_raced_a_write_is_not_served_after_the_write(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = await harness.session(name="old")
    real = harness.store.list_sessions
    read, release = asyncio.Event(), asyncio.Event()

    async def held(query: SessionQuery) -> SessionPage:
        page: SessionPage = await real(query)  # read before the write below
        read.set()
        await release.wait()
        return page

    monkeypatch.setattr(harness.store, "list_sessions", held)
    racing = asyncio.create_task(listed(harness))
    await read.wait()
    await harness.kernel.update_session(session.id, SessionUpdate(name="new"))  # acknowledged
    release.set()
    assert names(await racing) == ["old"]  # what it read, before the write: still right then
    monkeypatch.setattr(harness.store, "list_sessions", real)
    assert names(await listed(harness)) == ["new"]


async def test_callers_who_list_other_sessions_never_share_a_page(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    for principal, name in ((ALICE, "alice's"), (BOB, "bob's")):
        with acting_as(principal):
            await harness.session(name=name)
    reads = count_calls(monkeypatch, harness.store, "list_sessions")
    with acting_as(ALICE_ADMIN):  # the same id as ALICE, but an admin: lists every session
        assert names(await listed(harness)) == ["bob's", "alice's"]
    with acting_as(ALICE):
        assert names(await listed(harness)) == ["alice's"]
        assert names(await listed(harness)) == ["alice's"]
    with acting_as(BOB):
        assert names(await listed(harness)) == ["bob's"]
    with acting_as(ALICE_ADMIN):
        assert names(await listed(harness)) == ["bob's", "alice's"]
    assert len(reads) == 3  # one page per set of listed owners


async def test_at_most_the_configured_pages_are_kept_least_recent_first_out(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("a", "b", "c"):
        await harness.session(name=name)
    reads = count_calls(monkeypatch, harness.store, "list_sessions")
    pages = SessionPages(harness.store, KernelLimits(list_page_cache=2))
    for size in (1, 2, 1, 3):  # size 1 read again: 2 is then the least recently used
        await pages.page(SessionQuery(page_size=size))
    assert len(pages) == 2 and len(reads) == 3
    await pages.page(SessionQuery(page_size=1))
    await pages.page(SessionQuery(page_size=3))
    assert len(reads) == 3
    await pages.page(SessionQuery(page_size=2))  # forgotten: read again
    assert len(reads) == 4 and len(pages) == 2
    none = SessionPages(harness.store, KernelLimits(list_page_cache=0))
    await none.page(SessionQuery())
    await none.page(SessionQuery())
    assert len(none) == 0 and len(reads) == 6


def test_the_bound_is_a_setting() -> None:
    assert parse_config(["--list-page-cache", "7"]).kernel_limits().list_page_cache == 7
    assert parse_config([]).kernel_limits().list_page_cache == KernelLimits().list_page_cache
