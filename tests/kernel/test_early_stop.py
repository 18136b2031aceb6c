"""A stop that arrives before its turn: remembered, bounded, applied before any send."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from maka_runtime.kernel.backends.scripted import KIND, scripted_factory
from maka_runtime.kernel.core import (
    BackendRegistry,
    NewSession,
    RuntimeKernel,
    SessionStore,
    TurnStream,
)
from maka_runtime.kernel.core.log.events import SessionEvent
from maka_runtime.kernel.core.validation import KernelLimits

from .harness import WORKSPACE, Harness, kinds, make_harness


@pytest.fixture
async def harness(store: SessionStore) -> AsyncIterator[Harness]:
    h = make_harness(store)
    yield h
    await h.close()


async def drain(stream: TurnStream) -> list[SessionEvent]:
    return [event async for event in stream]


async def test_a_stop_before_admission_aborts_the_turn_before_its_backend_runs(
    harness: Harness,
) -> None:
    session = await harness.session()
    outcome = await harness.kernel.stop_session(session.id, turn_id="t1", source="stop_button")
    assert (outcome.stopped, outcome.turn_id, outcome.mode) == (True, "t1", "immediate")
    events = await drain(harness.kernel.start_turn(session.id, "t1", text="/script say never"))
    assert [(e.type, getattr(e, "status", "")) for e in events] == [("turn_state", "aborted")]
    log = await harness.store.read_messages(session.id)
    # Recorded like a turn stopped right after admission: its text, running, one abort.
    assert kinds(log)[1:] == [
        "user",
        "turn_state:running",
        "system_note:abort",
        "turn_state:aborted",
    ]
    assert not any(getattr(m, "text", "") == "never" for m in log)
    [turn] = await harness.kernel.list_turns(session.id)
    assert (turn.status, turn.abort_source) == ("aborted", "stop_button")
    assert (await harness.kernel.get_session(session.id)).status == "aborted"


async def test_a_stop_while_the_turn_is_reserved_aborts_it_without_sending(
    store: SessionStore,
) -> None:
    reserving = asyncio.Event()
    release = asyncio.Event()

    async def held(activate: Callable[[], Awaitable[Any]]) -> Any:
        reserving.set()
        await release.wait()
        return await activate()

    backends = BackendRegistry()
    backends.register(KIND, scripted_factory)
    kernel = RuntimeKernel(store=store, backends=backends, run_backend_activation=held)
    try:
        session = await kernel.create_session(NewSession(workspace_root=WORKSPACE, backend=KIND))
        stream = kernel.start_turn(session.id, "t1", text="/script say never")
        reading = asyncio.ensure_future(drain(stream))
        await reserving.wait()
        outcome = await kernel.stop_session(session.id, turn_id="t1")
        assert (outcome.stopped, outcome.turn_id) == (True, "t1")
        release.set()
        events = await reading
        assert [(e.type, getattr(e, "status", "")) for e in events] == [("turn_state", "aborted")]
        log = await store.read_messages(session.id)
        assert kinds(log)[1:] == [
            "user",
            "turn_state:running",
            "system_note:abort",
            "turn_state:aborted",
        ]
        assert not any(getattr(m, "text", "") == "never" for m in log)
    finally:
        await kernel.close()


async def test_a_stop_for_a_turn_that_never_comes_does_not_touch_the_next_turn(
    harness: Harness,
) -> None:
    session = await harness.session()
    ghost = await harness.kernel.stop_session(session.id, turn_id="ghost")
    assert ghost.stopped
    events = await drain(harness.kernel.start_turn(session.id, "t2", text="/script say hi"))
    assert events[-1].type == "turn_state" and getattr(events[-1], "status", "") == "completed"
    # Admitting t2 forgot the stop for "ghost": a late turn of that id runs normally.
    late = await drain(harness.kernel.start_turn(session.id, "ghost", text="/script say late"))
    assert getattr(late[-1], "status", "") == "completed"
    assert any(getattr(e, "text", "") == "late" for e in late)


async def test_remembered_stops_are_bounded_oldest_first(store: SessionStore) -> None:
    h = make_harness(store)
    h.kernel.limits = KernelLimits(max_early_stops=2)
    try:
        session = await h.session()
        for turn_id in ("a", "b", "c"):
            assert (await h.kernel.stop_session(session.id, turn_id=turn_id)).stopped
        first = await drain(h.kernel.start_turn(session.id, "a", text="/script say a"))
        assert getattr(first[-1], "status", "") == "completed"  # "a" was the oldest: forgotten
    finally:
        await h.close()


async def test_a_stop_naming_another_or_a_recorded_turn_stops_nothing(harness: Harness) -> None:
    session = await harness.session()
    done = await drain(harness.kernel.start_turn(session.id, "t1", text="/script say one"))
    assert getattr(done[-1], "status", "") == "completed"
    recorded = await harness.kernel.stop_session(session.id, turn_id="t1")
    assert (recorded.stopped, recorded.turn_id) == (False, "")
    stream = harness.kernel.start_turn(session.id, "t2", text="/script say a; hang; say never")
    async for event in stream:
        if event.type == "text_delta":
            break
    other = await harness.kernel.stop_session(session.id, turn_id="t3")
    assert (other.stopped, other.turn_id) == (True, "t3")  # remembered for t3; t2 runs on
    stopped = await harness.kernel.stop_session(session.id, turn_id="t2")
    assert (stopped.stopped, stopped.turn_id) == (True, "t2")
    rest = await drain(stream)
    assert [getattr(e, "status", "") for e in rest if e.type == "turn_state"] == ["aborted"]
    idle = await harness.kernel.stop_session(session.id)
    assert (idle.stopped, idle.turn_id) == (False, "")
