"""Turns through the kernel with the scripted backend: streaming, stops, admission, drain."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from maka_runtime.kernel.backends.scripted import KIND, scripted_factory
from maka_runtime.kernel.core import (
    HostDrainingError,
    InvalidRequestError,
    NotFoundError,
    OperationConflictError,
    SessionArchivedError,
    SessionBusyError,
    SessionStore,
    SessionUpdate,
    SessionWatch,
    TurnStream,
)
from maka_runtime.kernel.core.backend import BackendRegistry
from maka_runtime.kernel.core.log.events import (
    ErrorEvent,
    SessionEvent,
    TurnState,
    UserQuestionRequest,
)
from maka_runtime.kernel.core.turns.drain import DrainRung
from tests.support.typed import last, only

from .harness import Harness, build_harness, kinds, make_harness


@pytest.fixture
async def harness(store: SessionStore) -> AsyncIterator[Harness]:
    h = make_harness(store)
    yield h
    await h.close()


async def events_until(stream: TurnStream, event_type: str) -> list[SessionEvent]:
    seen = []
    async for event in stream:
        seen.append(event)
        if event.type == event_type:
            return seen
    pytest.fail(f"stream ended before a {event_type} event: {[e.type for e in seen]}")


async def test_every_streamed_event_is_committed_before_it_is_seen(harness: Harness) -> None:
    session = await harness.session()
    seen = []
    async for event in harness.kernel.start_turn(
        session.id, "t1", text="/script say hi; tool bash ls; words 3"
    ):
        stored = await harness.store.read_messages(session.id, after_seq=event.seq - 1, limit=1)
        assert stored == [event]
        seen.append(event)
    assert [e.type for e in seen] == [
        "text_delta",
        "tool_call",
        "tool_output",
        "tool_result",
        "text_delta",
        "text_delta",
        "text_delta",
        "complete",
        "turn_state",
    ]
    assert [e.seq for e in seen] == sorted({e.seq for e in seen})
    assert seen[-1].type == "turn_state" and seen[-1].status == "completed"
    [turn] = await harness.kernel.list_turns(session.id)
    assert (turn.turn_id, turn.status, turn.text) == ("t1", "completed", seen and turn.text)
    header = await harness.kernel.get_session(session.id)
    assert (header.status, header.has_unread) == ("active", True)
    assistant = [m for m in await harness.store.read_messages(session.id) if m.type == "assistant"]
    assert [m.text for m in assistant] == ["hi", "word1 word2 word3 "]


async def test_a_second_concurrent_turn_is_refused_naming_the_active_turn(
    harness: Harness,
) -> None:
    session = await harness.session()
    first = harness.kernel.start_turn(session.id, "t-active", text="/script say a; hang")
    await events_until(first, "text_delta")
    before = await harness.store.last_seq(session.id)
    with pytest.raises(SessionBusyError, match="t-active") as refused:
        await anext(aiter(harness.kernel.start_turn(session.id, "t-second", text="hello")))
    assert refused.value.active_turn_id == "t-active"
    assert await harness.store.last_seq(session.id) == before
    await harness.kernel.stop_session(session.id)
    await first.aclose()


async def test_a_retried_start_with_the_same_turn_id_is_idempotent(harness: Harness) -> None:
    session = await harness.session()
    text = "/script say one; ask go?; say two"
    first = harness.kernel.start_turn(session.id, "t1", text=text)
    [delta, question] = await events_until(first, "user_question_request")
    retry = harness.kernel.start_turn(session.id, "t1", text=text)
    assert [e.seq for e in await events_until(retry, "user_question_request")] == [
        delta.seq,
        question.seq,
    ]
    assert retry.attached
    await harness.kernel.answer_user_question(
        session.id, only(question, UserQuestionRequest).request_id, ["yes"]
    )
    rest_first = [e async for e in first]
    rest_retry = [e async for e in retry]
    assert rest_first == rest_retry
    assert rest_first[-1].type == "turn_state"
    replay = [e async for e in harness.kernel.start_turn(session.id, "t1", text=text)]
    assert replay == [delta, question, *rest_first]
    with pytest.raises(OperationConflictError, match="different text"):
        await anext(aiter(harness.kernel.start_turn(session.id, "t1", text="other")))
    assert len(await harness.kernel.list_turns(session.id)) == 1


async def test_immediate_stop_aborts_the_turn_once(harness: Harness) -> None:
    session = await harness.session()
    stream = harness.kernel.start_turn(session.id, "t1", text="/script say a; hang; say never")
    await events_until(stream, "text_delta")
    outcome = await harness.kernel.stop_session(session.id, source="stop_button")
    assert (outcome.turn_id, outcome.mode) == ("t1", "immediate")
    # An immediate stop answers once the turn has ended: a second one finds nothing running.
    again = await harness.kernel.stop_session(session.id, source="stop_button")
    assert again.turn_id == ""
    rest = [e async for e in stream]
    # The backend's own ``complete`` is recorded before the terminal state, which is last.
    assert [(e.type, getattr(e, "status", getattr(e, "stop_reason", ""))) for e in rest] == [
        ("complete", "user_stop"),
        ("turn_state", "aborted"),
    ]
    log = await harness.store.read_messages(session.id)
    assert kinds(log).count("turn_state:aborted") == 1
    assert kinds(log).count("system_note:abort") == 1
    assert not any(getattr(m, "text", "") == "never" for m in log)
    assert (await harness.kernel.get_session(session.id)).status == "aborted"
    [turn] = await harness.kernel.list_turns(session.id)
    assert (turn.status, turn.abort_source) == ("aborted", "stop_button")
    idle = await harness.kernel.stop_session(session.id)
    assert idle.turn_id == ""


async def test_after_step_stop_lets_the_current_step_finish(harness: Harness) -> None:
    session = await harness.session()
    stream = harness.kernel.start_turn(session.id, "t1", text="/script ask continue?; say after")
    await events_until(stream, "user_question_request")
    await harness.kernel.stop_session(session.id, mode="after_step")
    rest = [e async for e in stream]
    texts = [e.text for e in rest if e.type == "text_delta"]
    assert texts == ["question cancelled: turn_stopped"]
    assert [e.stop_reason for e in rest if e.type == "complete"] == ["user_stop"]
    assert [e.status for e in rest if e.type == "turn_state"] == ["aborted"]
    assert next(e for e in rest if e.type == "interaction_resolved").outcome == "closed"


async def test_backend_failure_records_an_error_and_a_failed_turn(harness: Harness) -> None:
    session = await harness.session()
    events = [
        e async for e in harness.kernel.start_turn(session.id, text="/script say a; fail boom")
    ]
    assert [e.type for e in events] == ["text_delta", "error", "turn_state"]
    assert only(events[1], ErrorEvent).message == "boom"
    assert only(events[2], TurnState).status == "failed"
    events = [e async for e in harness.kernel.start_turn(session.id, text="/script dance")]
    assert [e.type for e in events] == ["error", "turn_state"]
    assert "unknown step 'dance'" in only(events[0], ErrorEvent).message


@pytest.mark.parametrize(
    ("turn_id", "text", "field"),
    [
        ("t1", "", "text"),
        ("t1", "   ", "text"),
        ("t1", "x" * (64 * 1024 + 1), "text"),
        ("bad id!", "hello", "turn_id"),
    ],
)
async def test_bad_turn_input_is_refused_before_anything_is_written(
    harness: Harness, turn_id: str, text: str, field: str
) -> None:
    session = await harness.session()
    before = await harness.store.last_seq(session.id)
    with pytest.raises(InvalidRequestError) as refused:
        harness.kernel.start_turn(session.id, turn_id, text=text)
    assert refused.value.field == field
    assert await harness.store.last_seq(session.id) == before


async def test_unknown_sessions_and_bad_modes_are_refused(harness: Harness) -> None:
    with pytest.raises(NotFoundError):
        await anext(aiter(harness.kernel.start_turn("nope", text="hello")))
    with pytest.raises(NotFoundError):
        await harness.kernel.stop_session("nope")
    session = await harness.session()
    with pytest.raises(InvalidRequestError) as refused:
        harness.kernel.stop_session(session.id, mode="sometime")  # type: ignore[arg-type]
    assert refused.value.field == "mode"
    with pytest.raises(InvalidRequestError):
        harness.kernel.stop_session(session.id, source="Stop Button")


async def test_archived_sessions_refuse_turns_and_archiving_stops_the_running_one(
    harness: Harness,
) -> None:
    session = await harness.session()
    stream = harness.kernel.start_turn(session.id, "t1", text="/script say a; hang")
    await events_until(stream, "text_delta")
    header = await harness.kernel.update_session(session.id, SessionUpdate(archived=True))
    assert header.is_archived
    rest = [e async for e in stream]
    [aborted] = [e for e in rest if e.type == "turn_state"]
    assert (aborted.status, aborted.abort_source) == ("aborted", "archive")
    with pytest.raises(SessionArchivedError):
        await anext(aiter(harness.kernel.start_turn(session.id, text="hello")))


async def test_sessions_can_be_updated_and_deleted_unless_busy(harness: Harness) -> None:
    session = await harness.session(name="first", labels=("a",))
    header = await harness.kernel.update_session(
        session.id,
        SessionUpdate(name="renamed", is_flagged=True, labels=["b", "b"], permission_mode="bypass"),
    )
    assert (header.name, header.title_is_manual, header.is_flagged, header.labels) == (
        "renamed",
        True,
        True,
        ("b",),
    )
    with pytest.raises(InvalidRequestError):
        await harness.kernel.update_session(session.id, SessionUpdate(permission_mode="yolo"))
    stream = harness.kernel.start_turn(session.id, "t1", text="/script say a; hang")
    await events_until(stream, "text_delta")
    with pytest.raises(SessionBusyError):
        await harness.kernel.delete_session(session.id)
    await harness.kernel.stop_session(session.id)
    _ = [e async for e in stream]
    await harness.kernel.delete_session(session.id)
    with pytest.raises(NotFoundError):
        await harness.kernel.get_session(session.id)


async def test_messages_sent_into_a_running_turn_are_pulled_at_the_next_step(
    harness: Harness,
) -> None:
    session = await harness.session()
    with pytest.raises(OperationConflictError, match="no running turn"):
        await harness.kernel.send_message(session.id, "too early")
    stream = harness.kernel.start_turn(session.id, "t1", text="/script ask ready?; say done")
    [question] = await events_until(stream, "user_question_request")
    queued = await harness.kernel.send_message(session.id, "also this", turn_id="t1")
    with pytest.raises(OperationConflictError):
        await harness.kernel.send_message(session.id, "x", turn_id="other")
    await harness.kernel.answer_user_question(
        session.id, only(question, UserQuestionRequest).request_id, ["yes"]
    )
    texts = [e.text async for e in stream if e.type == "text_delta"]
    assert texts == ["answer: yes", "received: also this", "done"]
    log = await harness.store.read_messages(session.id)
    delivered = [m for m in log if m.type == "user" and m.queued]
    assert [(m.id, m.text) for m in delivered] == [(queued.message_id, "also this")]


async def test_messages_left_when_the_turn_ends_are_rejected_on_the_record(
    harness: Harness,
) -> None:
    session = await harness.session()
    stream = harness.kernel.start_turn(session.id, "t1", text="/script ask q?; say x")
    await events_until(stream, "user_question_request")
    await harness.kernel.send_message(session.id, "never read")
    await harness.kernel.stop_session(session.id)
    _ = [e async for e in stream]
    notes = [m for m in await harness.store.read_messages(session.id) if m.type == "system_note"]
    assert [n.kind for n in notes if n.kind == "message_rejected"] == ["message_rejected"]


async def test_drain_stops_turns_after_step_then_immediately_and_refuses_new_ones(
    harness: Harness,
) -> None:
    polite = await harness.session()
    stubborn = await harness.session()
    polite_stream = harness.kernel.start_turn(polite.id, "p1", text="/script ask q?; say x")
    stubborn_stream = harness.kernel.start_turn(stubborn.id, "s1", text="/script say a; hang")
    await events_until(polite_stream, "user_question_request")
    await events_until(stubborn_stream, "text_delta")

    report = await harness.kernel.drain(grace=0.5, escalation_grace=5)

    outcomes = {(t.session_id, t.turn_id): (t.outcome, t.failure) for t in report.turns}
    assert outcomes == {
        (polite.id, "p1"): ("stopped_after_step", ""),
        (stubborn.id, "s1"): ("stopped_immediately", ""),
    }
    with pytest.raises(HostDrainingError):
        await anext(aiter(harness.kernel.start_turn(polite.id, text="hello")))
    for session_id in (polite.id, stubborn.id):
        log = kinds(await harness.store.read_messages(session_id))
        assert log.count("turn_state:aborted") == 1
        assert log.count("system_note:abort") == 1
    _ = [e async for e in polite_stream] + [e async for e in stubborn_stream]


async def test_invalidating_cached_backends_builds_a_fresh_one_next_turn(
    harness: Harness,
) -> None:
    session = await harness.session()
    _ = [e async for e in harness.kernel.start_turn(session.id, text="hello")]
    first = harness.kernel.backend_generation(session.id)
    assert first is not None
    await harness.kernel.invalidate_cached_backends()
    assert first.disposal_state == "disposed"
    _ = [e async for e in harness.kernel.start_turn(session.id, text="hello again")]
    current = harness.kernel.backend_generation(session.id)
    assert current is not None and current.number == 2


async def test_an_abandoned_stream_is_stopped_and_recorded(harness: Harness) -> None:
    session = await harness.session()
    stream = harness.kernel.start_turn(session.id, "t1", text="/script say a; hang")
    await events_until(stream, "text_delta")
    await stream.aclose()
    log = await harness.store.read_messages(session.id)
    aborted = [m for m in log if m.type == "turn_state" and m.status == "aborted"]
    assert [m.abort_source for m in aborted] == ["stream_abandoned"]
    await asyncio.wait_for(harness.kernel.wait_settled(session.id), 5)
    assert harness.kernel.active_turn(session.id) is None


@pytest.mark.timeout(10)
async def test_closing_the_kernel_under_a_read_turn_does_not_spin_the_event_loop(
    harness: Harness,
) -> None:
    session = await harness.session()
    stream = harness.kernel.start_turn(session.id, "t1", text="/script say a; hang")
    await events_until(stream, "text_delta")
    reader = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0)  # the reader is now waiting for the next entry of the log
    assert not reader.done()
    await harness.kernel.close()
    with pytest.raises(HostDrainingError):
        await reader
    with pytest.raises(StopAsyncIteration):
        await anext(stream)


@pytest.mark.parametrize("late", ["abandon", "stop"])
async def test_a_stop_after_the_turn_recorded_its_end_writes_no_second_terminal_state(
    store: SessionStore, late: str
) -> None:
    """Regression: a stream cancelled right after ``turn_state completed`` (before the run
    settled) used to project ``turn_state aborted`` and an abort note on top of it. The run is
    held after its end by the retirement of its backend (invalidated while the turn ran)."""
    settling = asyncio.Event()
    release = asyncio.Event()

    def held_factory(header: Any) -> Any:
        backend = scripted_factory(header)
        dispose = backend.dispose

        async def held_dispose() -> None:
            settling.set()
            await release.wait()
            await dispose()

        backend.dispose = held_dispose  # type: ignore[method-assign]
        return backend

    backends = BackendRegistry()
    backends.register(KIND, held_factory)
    harness = build_harness(store, backends)
    try:
        session = await harness.session()
        stream = harness.kernel.start_turn(session.id, "t-ending", text="/script ask Go? | yes")
        question = last(await events_until(stream, "user_question_request"), UserQuestionRequest)
        await harness.kernel.invalidate_cached_backends()  # busy: retired when the run settles
        await harness.kernel.answer_user_question(session.id, question.request_id, ["yes"])
        seen = await events_until(stream, "turn_state")
        assert last(seen, TurnState).status == "completed"
        await settling.wait()
        if late == "abandon":
            assert stream.abandon() is None
        else:
            outcome = await harness.kernel.stop_session(session.id, source="stop_button")
            assert outcome.turn_id == ""
        release.set()
        assert [e async for e in stream] == []
        messages = await harness.store.read_messages(session.id)
        terminal = [
            m
            for m in messages
            if m.type == "turn_state" and m.turn_id == "t-ending" and m.status != "running"
        ]
        assert [m.status for m in terminal] == ["completed"]
        assert not [m for m in messages if m.type == "system_note" and m.kind == "abort"]
        [turn] = await harness.kernel.list_turns(session.id)
        assert turn.status == "completed"
    finally:
        release.set()
        await harness.close()


async def test_the_drain_climbs_its_rungs_in_order_and_never_back(harness: Harness) -> None:
    session = await harness.session()
    kernel = harness.kernel
    rungs = [kernel.drain_rung]
    kernel.begin_drain()
    rungs.append(kernel.drain_rung)
    watch = await kernel.watch_session(session.id)
    report = await kernel.shut_down(grace=0.5, escalation_grace=1)
    rungs.append(kernel.drain_rung)
    kernel.begin_drain()  # an earlier rung is never taken again
    rungs.append(kernel.drain_rung)
    await kernel.close()
    rungs.append(kernel.drain_rung)
    assert rungs == [
        DrainRung.SERVING,
        DrainRung.ADMISSION_CLOSED,
        DrainRung.READERS_ENDED,
        DrainRung.READERS_ENDED,
        DrainRung.CLOSED,
    ]
    assert report.turns == ()
    # The readers ended with the shutdown: the watch ends rather than wait for entries.
    await asyncio.wait_for(_drain_watch(watch), 5)


async def _drain_watch(watch: SessionWatch) -> None:
    async for _ in watch:
        pass


async def test_an_after_step_stop_escalated_to_immediate_ends_a_hanging_turn(
    harness: Harness,
) -> None:
    session = await harness.session()
    stream = harness.kernel.start_turn(session.id, "t1", text="/script say working; hang")
    await events_until(stream, "text_delta")
    first = await harness.kernel.stop_session(session.id, mode="after_step")
    assert first.mode == "after_step"
    second = await asyncio.wait_for(harness.kernel.stop_session(session.id), 5)
    assert second.mode == "immediate"
    rest = [e async for e in stream]
    assert isinstance(rest[-1], TurnState) and rest[-1].status == "aborted"
