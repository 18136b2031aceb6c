"""The hosted interaction authority: durable requests, answered once, timeouts deny, closes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from maka_runtime.kernel.core import (
    InteractionAlreadyResolvedError,
    InvalidRequestError,
    NotFoundError,
    RuntimeInteractionInvariantError,
    SessionStore,
)
from maka_runtime.kernel.core.log.events import SandboxBoundaryRequest, UserQuestionRequest

from ..support.typed import only
from .harness import Harness, kinds, make_harness
from .test_kernel_turns import events_until


@pytest.fixture
async def harness(store: SessionStore) -> AsyncIterator[Harness]:
    h = make_harness(store, answer_timeout=30)
    yield h
    await h.close()


async def test_a_request_is_stored_before_it_is_streamed_and_answered_once(
    harness: Harness,
) -> None:
    session = await harness.session()
    stream = harness.kernel.start_turn(
        session.id, "t1", text="/script approve rm -rf build; say ok"
    )
    [event] = await events_until(stream, "sandbox_boundary_request")
    request = only(event, SandboxBoundaryRequest)
    assert isinstance(request, SandboxBoundaryRequest)
    record = await harness.store.get_interaction(session.id, request.request_id)
    assert record is not None and (record.status, record.turn_id) == ("pending", "t1")
    assert record.request.command == "rm -rf build"
    assert (await harness.kernel.get_session(session.id)).status == "waiting_for_user"

    answered = await harness.kernel.answer_sandbox_boundary(
        session.id, request.request_id, "allow_once"
    )
    assert (answered.status, answered.decision) == ("answered", "allow_once")
    with pytest.raises(InteractionAlreadyResolvedError) as second:
        await harness.kernel.answer_sandbox_boundary(session.id, request.request_id, "deny")
    assert second.value.code == "already_resolved"
    rest = [e async for e in stream]
    assert [e.text for e in rest if e.type == "text_delta"] == ["approved: rm -rf build", "ok"]
    stored = await harness.store.get_interaction(session.id, request.request_id)
    assert stored is not None and stored.decision == "allow_once"
    assert harness.timers.live() == 0


async def test_allow_for_session_is_remembered_and_deny_ends_the_turn(harness: Harness) -> None:
    session = await harness.session()
    stream = harness.kernel.start_turn(session.id, text="/script approve make; approve make")
    [event] = await events_until(stream, "sandbox_boundary_request")
    request = only(event, SandboxBoundaryRequest)
    await harness.kernel.answer_sandbox_boundary(session.id, request.request_id, "allow_session")
    rest = [e async for e in stream]
    assert [e.type for e in rest].count("sandbox_boundary_request") == 0
    stream = harness.kernel.start_turn(session.id, text="/script approve deploy; say never")
    [event] = await events_until(stream, "sandbox_boundary_request")
    request = only(event, SandboxBoundaryRequest)
    await harness.kernel.answer_sandbox_boundary(session.id, request.request_id, "deny")
    rest = [e async for e in stream]
    assert [e.text for e in rest if e.type == "text_delta"] == ["denied: deploy"]
    assert [e.stop_reason for e in rest if e.type == "complete"] == ["denied"]


async def test_bad_answers_are_refused_and_change_nothing(harness: Harness) -> None:
    session = await harness.session()
    stream = harness.kernel.start_turn(session.id, text="/script ask pick one | red | blue")
    [event] = await events_until(stream, "user_question_request")
    question = only(event, UserQuestionRequest)
    assert isinstance(question, UserQuestionRequest)
    assert question.options == ("red", "blue")
    with pytest.raises(NotFoundError):
        await harness.kernel.answer_user_question(session.id, "no-such-request", ["red"])
    with pytest.raises(InvalidRequestError) as wrong_kind:
        await harness.kernel.answer_sandbox_boundary(session.id, question.request_id, "deny")
    assert wrong_kind.value.field == "request_id"
    with pytest.raises(InvalidRequestError) as not_an_option:
        await harness.kernel.answer_user_question(session.id, question.request_id, ["green"])
    assert not_an_option.value.field == "answers"
    with pytest.raises(InvalidRequestError):
        await harness.kernel.answer_user_question(session.id, question.request_id, [])
    with pytest.raises(InvalidRequestError) as bad_decision:
        await harness.kernel.answer_sandbox_boundary(session.id, question.request_id, "maybe")
    assert bad_decision.value.field == "decision"
    record = await harness.store.get_interaction(session.id, question.request_id)
    assert record is not None and record.status == "pending"
    await harness.kernel.answer_user_question(session.id, question.request_id, ["blue"])
    rest = [e async for e in stream]
    assert [e.text for e in rest if e.type == "text_delta"] == ["answer: blue"]


async def test_an_unanswered_request_times_out_as_a_denial_on_the_record(
    harness: Harness,
) -> None:
    session = await harness.session()
    stream = harness.kernel.start_turn(session.id, "t1", text="/script approve push; say after")
    [event] = await events_until(stream, "sandbox_boundary_request")
    request = only(event, SandboxBoundaryRequest)
    assert [delay for delay, _, _ in harness.timers.armed] == [30]
    harness.timers.fire_all()
    rest = [e async for e in stream]
    [resolved] = [e for e in rest if e.type == "interaction_resolved"]
    assert (resolved.outcome, resolved.reason) == (
        "timed_out",
        "timed_out: no answer within 30 s, denied",
    )
    assert [e.text for e in rest if e.type == "text_delta"] == ["denied: push"]
    record = await harness.store.get_interaction(session.id, request.request_id)
    assert record is not None
    assert (record.status, record.decision) == ("timed_out", "deny")
    assert "no answer within 30 s" in record.reason
    with pytest.raises(InteractionAlreadyResolvedError, match="timed_out"):
        await harness.kernel.answer_sandbox_boundary(session.id, request.request_id, "allow_once")


async def test_a_real_answer_timeout_denies(store: SessionStore) -> None:
    harness = make_harness(store, answer_timeout=0.05, real_timers=True)
    try:
        session = await harness.session()
        events = [e async for e in harness.kernel.start_turn(session.id, text="/script ask q?")]
        [resolved] = [e for e in events if e.type == "interaction_resolved"]
        assert resolved.outcome == "timed_out"
        assert [e.text for e in events if e.type == "text_delta"] == [
            "question cancelled: timed_out: no answer within 0.05 s, denied"
        ]
    finally:
        await harness.close()


async def test_stopping_the_turn_closes_its_pending_requests(harness: Harness) -> None:
    session = await harness.session()
    stream = harness.kernel.start_turn(session.id, text="/script ask q?")
    [event] = await events_until(stream, "user_question_request")
    question = only(event, UserQuestionRequest)
    await harness.kernel.stop_session(session.id)
    _ = [e async for e in stream]
    record = await harness.store.get_interaction(session.id, question.request_id)
    assert record is not None and (record.status, record.reason) == ("closed", "turn_stopped")
    assert harness.timers.live() == 0
    assert harness.interactions.live_runs == 0
    with pytest.raises(InteractionAlreadyResolvedError, match="closed"):
        await harness.kernel.answer_user_question(session.id, question.request_id, ["late"])
    log = kinds(await harness.store.read_messages(session.id))
    assert log.count("interaction_resolved:closed") == 1


async def test_the_legacy_responder_works_only_without_a_hosted_authority(
    store: SessionStore,
) -> None:
    from maka_runtime.kernel.backends.scripted import KIND, scripted_factory
    from maka_runtime.kernel.core import BackendRegistry, NewSession, RuntimeKernel

    backends = BackendRegistry()
    backends.register(KIND, scripted_factory)
    kernel = RuntimeKernel(store=store, backends=backends)
    try:
        session = await kernel.create_session(NewSession(workspace_root="/tmp"))
        stream = kernel.start_turn(session.id, text="/script ask q?")
        [event] = await events_until(stream, "user_question_request")
        question = only(event, UserQuestionRequest)
        with pytest.raises(RuntimeInteractionInvariantError):
            await kernel.answer_user_question(session.id, question.request_id, ["x"])
        with pytest.raises(NotFoundError):
            await kernel.respond_to_user_question(session.id, "unknown", ["x"])
        await kernel.respond_to_user_question(session.id, question.request_id, ["legacy"])
        rest = [e async for e in stream]
        assert [e.text for e in rest if e.type == "text_delta"] == ["answer: legacy"]
    finally:
        await kernel.close()


async def test_an_answer_reaches_the_backend_even_if_the_answering_caller_goes_away(
    harness: Harness,
) -> None:
    """Regression: the answer was recorded in the caller's task; a caller cancelled after the
    record (a client whose RPC was cancelled) left the backend waiting forever."""
    session = await harness.session()
    stream = harness.kernel.start_turn(
        session.id, "t-q", text="/script ask Which? | red | blue; say done"
    )
    *_, event = await events_until(stream, "user_question_request")
    question = only(event, UserQuestionRequest)
    held = asyncio.Event()
    release = asyncio.Event()
    update_header = harness.store.update_header

    async def held_update_header(session_id: str, patch: dict[str, object]) -> object:
        if patch.get("status") == "running" and not release.is_set():
            held.set()  # the resolution is on the record; delivery to the backend is next
            await release.wait()
        return await update_header(session_id, patch)

    harness.store.update_header = held_update_header
    answering = asyncio.ensure_future(
        harness.kernel.answer_user_question(session.id, question.request_id, ["blue"])
    )
    await held.wait()
    answering.cancel()
    with pytest.raises(asyncio.CancelledError):
        await answering
    release.set()
    rest = [event async for event in stream]
    assert [e.text for e in rest if e.type == "text_delta"] == ["answer: blue", "done"]
    assert rest[-1].type == "turn_state" and rest[-1].status == "completed"
