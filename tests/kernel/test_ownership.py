"""Sessions belong to the principal that created them, decided in the kernel core.

For any other principal a session does not exist: every operation that names it fails with
exactly the error of an id nobody created. ``admin`` and the kernel itself (no principal) see
every session; a session recorded without an owner is the local principal's."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from maka_runtime.common.principal import ADMIN, CLIENT, LOCAL, OPERATOR, Principal, acting_as
from maka_runtime.kernel.core import NotFoundError, SessionQuery, SessionStore, SessionUpdate
from maka_runtime.kernel.core.access import listed_owners, may_see, owner_of
from maka_runtime.kernel.core.session import SessionHeader
from tests.support.counting import count_calls

from .harness import Harness, make_harness

ALICE = Principal("alice", frozenset({CLIENT}))
BOB = Principal("bob", frozenset({CLIENT, OPERATOR}))
ROOT = Principal("root", frozenset({ADMIN}))
LOCAL_USER = Principal(LOCAL, frozenset({ADMIN, CLIENT}))
PLAIN_LOCAL = Principal(LOCAL, frozenset({CLIENT}))
UNKNOWN = "no-such-session"


@pytest.fixture
async def harness(store: SessionStore) -> AsyncIterator[Harness]:
    h = make_harness(store)
    yield h
    await h.close()


def header(owner: str) -> SessionHeader:
    return SessionHeader(
        id="s", workspace_root="/", cwd="/", created_at=1, last_used_at=1, owner=owner
    )


def test_the_rule() -> None:
    assert may_see(ALICE, header("alice")) and not may_see(BOB, header("alice"))
    assert may_see(ROOT, header("alice")) and may_see(None, header("alice"))
    # Recorded before owners: the local principal's, whatever its roles.
    assert owner_of(header("")) == LOCAL
    assert may_see(PLAIN_LOCAL, header("")) and not may_see(ALICE, header(""))
    assert listed_owners(ALICE) == ("alice",)
    assert listed_owners(PLAIN_LOCAL) == (LOCAL, "")
    assert listed_owners(ROOT) is None and listed_owners(None) is None


def operations(kernel: Any, session_id: str) -> dict[str, Callable[[], Awaitable[Any]]]:
    """Every kernel operation that names a session, as the API layer calls it."""

    async def start_turn() -> None:
        async for _ in kernel.start_turn(session_id, "t1", text="/script say hi"):
            pass

    async def watch() -> None:
        watch = await kernel.watch_session(session_id)
        await watch.aclose()

    return {
        "get": lambda: kernel.get_session(session_id),
        "read": lambda: kernel.read_messages(session_id),
        "turns": lambda: kernel.turns_page(session_id),
        "interactions": lambda: kernel.list_interactions(session_id),
        "watch": watch,
        "start_turn": start_turn,
        "stop": lambda: kernel.stop_session(session_id),
        "stop_turn": lambda: kernel.stop_session(session_id, turn_id="t9"),
        "answer_boundary": lambda: kernel.answer_sandbox_boundary(session_id, "r1", "allow"),
        "answer_question": lambda: kernel.answer_user_question(session_id, "r1", ["yes"]),
        "send": lambda: kernel.send_message(session_id, "hello"),
        "update": lambda: kernel.update_session(session_id, SessionUpdate(name="taken")),
        "archive": lambda: kernel.update_session(session_id, SessionUpdate(archived=True)),
        "delete": lambda: kernel.delete_session(session_id),
    }


async def refusal(call: Callable[[], Awaitable[Any]]) -> NotFoundError:
    with pytest.raises(NotFoundError) as raised:
        await call()
    return raised.value


async def snapshot(harness: Harness, session_id: str) -> tuple[Any, ...]:
    return (
        await harness.store.read_header(session_id),
        await harness.store.read_messages(session_id),
        await harness.store.list_turns(session_id),
    )


async def test_another_principal_gets_the_error_of_an_unknown_id_and_changes_nothing(
    harness: Harness,
) -> None:
    with acting_as(ALICE):
        session = await harness.session()
    assert session.owner == "alice"
    before = await snapshot(harness, session.id)
    with acting_as(BOB):
        for name, call in operations(harness.kernel, session.id).items():
            hidden = await refusal(call)
            unknown = await refusal(operations(harness.kernel, UNKNOWN)[name])
            assert str(hidden) == str(unknown).replace(UNKNOWN, session.id), name
            assert hidden.metadata() == {"kind": "session", "id": session.id}, name
    assert await snapshot(harness, session.id) == before
    assert harness.kernel.active_turn(session.id) is None


async def test_the_owner_and_admin_reach_the_session(harness: Harness) -> None:
    with acting_as(ALICE):
        session = await harness.session()
        events = [e async for e in harness.kernel.start_turn(session.id, text="/script say hi")]
        assert events
        assert (await harness.kernel.stop_session(session.id)).stopped is False
        assert len(await harness.kernel.list_turns(session.id)) == 1
    with acting_as(ROOT):
        assert (await harness.kernel.get_session(session.id)).owner == "alice"
        renamed = await harness.kernel.update_session(session.id, SessionUpdate(name="seen"))
        assert renamed.name == "seen"
        await harness.kernel.delete_session(session.id)
    with pytest.raises(NotFoundError):
        await harness.kernel.get_session(session.id)


async def test_a_principal_lists_its_own_sessions_and_admin_all(harness: Harness) -> None:
    with acting_as(ALICE):
        mine = {(await harness.session()).id for _ in range(3)}
    with acting_as(BOB):
        theirs = {(await harness.session()).id}
    created_by_kernel = (await harness.session()).id  # no principal: recorded without owner

    async def listed(principal: Principal | None, page_size: int = 50) -> set[str]:
        found: set[str] = set()
        token = ""
        with acting_as(principal):
            while True:
                page = await harness.kernel.list_sessions(
                    SessionQuery(page_size=page_size, page_token=token)
                )
                found |= {h.id for h in page.sessions}
                token = page.next_page_token
                if not token:
                    return found

    assert await listed(ALICE) == mine
    assert await listed(ALICE, page_size=1) == mine  # paging counts only the caller's own
    assert await listed(BOB) == theirs
    assert await listed(PLAIN_LOCAL) == {created_by_kernel}
    assert await listed(ROOT) == mine | theirs | {created_by_kernel}
    assert await listed(None) == mine | theirs | {created_by_kernel}


async def test_a_session_from_before_owners_belongs_to_the_local_principal(
    harness: Harness,
) -> None:
    with acting_as(ALICE):
        session = await harness.session()
    # A header as an older kernel stored it: no owner.
    await harness.store.remove(session.id)
    await harness.store.create(dataclasses.replace(session, owner=""))
    with acting_as(PLAIN_LOCAL):
        assert (await harness.kernel.get_session(session.id)).id == session.id
    with acting_as(ALICE):
        await refusal(lambda: harness.kernel.get_session(session.id))


async def test_a_stop_by_another_principal_never_reaches_a_running_turn(
    harness: Harness,
) -> None:
    with acting_as(ALICE):
        session = await harness.session()
        stream = harness.kernel.start_turn(session.id, "t1", text="/script say started; hang")
        first = await stream.__anext__()
        assert first.type == "text_delta"
    with acting_as(BOB):
        await refusal(lambda: harness.kernel.stop_session(session.id))
        await refusal(lambda: harness.kernel.send_message(session.id, "injected"))
    assert harness.kernel.active_turn(session.id) == "t1"
    with acting_as(ALICE):
        outcome = await harness.kernel.stop_session(session.id)
        assert outcome.stopped
        rest = [e async for e in stream]
    assert not any(getattr(e, "text", "") == "received: injected" for e in rest)
    await asyncio.wait_for(harness.kernel.wait_settled(session.id), 10)


async def test_a_refusal_is_logged_once_with_its_principal(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    with acting_as(ALICE):
        session = await harness.session()
    caplog.set_level("WARNING", logger="maka.auth")
    with acting_as(BOB):
        await refusal(lambda: harness.kernel.read_messages(session.id))
        await harness.kernel.list_sessions(SessionQuery())  # leaving sessions out is no refusal
    lines = [r.getMessage() for r in caplog.records if r.name == "maka.auth"]
    assert lines == [f"refused session {session.id} for bob: NOT_FOUND (not its owner)"]


async def test_a_held_header_is_answered_without_the_store_only_to_who_may_see_it(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    kernel = harness.kernel
    with acting_as(ALICE):
        session = await harness.session()
    reads = count_calls(monkeypatch, harness.store, "read_header")
    with acting_as(ALICE):
        assert kernel.session_now(session.id) == session
    with acting_as(ROOT):
        assert kernel.session_now(session.id) == session
    assert reads == []
    with acting_as(BOB):  # not its owner: only the awaited path answers (and refuses)
        assert kernel.session_now(session.id) is None
    assert kernel.session_now(UNKNOWN) is None
    with acting_as(ALICE):
        renamed = await kernel.update_session(session.id, SessionUpdate(name="renamed"))
        assert kernel.session_now(session.id) == renamed
        await kernel.delete_session(session.id)
        assert kernel.session_now(session.id) is None
