"""The eleven scenarios of ``runtime-kernel-interaction.test.ts``, assertion for assertion.

Each test keeps the spec's name (in Python idiom) and its exact outcomes: which call happens
once, which failure contains which, what is written to the store and how many times.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from maka_runtime.kernel.core import (
    BackendRegistry,
    RunIdentity,
    RuntimeInteractionInvariantError,
    RuntimeKernel,
    RuntimeOwnerCleanupError,
)

from .fakes import (
    SESSION_ID,
    BlockingBackend,
    FakeInteractionOwner,
    Ids,
    assert_canonical_close_failure,
    close_quietly,
    contains_failure,
    drain_iterator,
    fail_stop_markers,
    rejection_of,
    runtime_fixture,
    spec_store,
    start_rejection,
    wait_for,
    within,
)


def count(messages: list[Any], **fields: Any) -> int:
    return sum(all(getattr(m, k, None) == v for k, v in fields.items()) for m in messages)


async def test_reserve_followed_by_begin_failure_settles_a_concurrent_stop_claim() -> None:
    store = await spec_store()
    update_header = store.update_header
    backends = BackendRegistry()
    backend = BlockingBackend(SESSION_ID)
    backends.register("fake", lambda header: backend)
    startup_failure = RuntimeError("mark running rejected after reservation")
    stopped_failure: asyncio.Future[BaseException] | None = None
    kernel: RuntimeKernel

    async def mark_running_rejected(session_id: str, patch: Any) -> Any:
        nonlocal stopped_failure
        if patch.get("status") == "running":
            stopped_failure = start_rejection(kernel.stop_session(SESSION_ID, source="stop_button"))
            raise startup_failure
        return await update_header(session_id, patch)

    store.update_header = mark_running_rejected  # type: ignore[method-assign]
    ids = Ids("begin-failure-id")
    kernel = RuntimeKernel(store=store, backends=backends, new_id=ids.new_id, now=ids.now)
    iterator = aiter(kernel.start_turn(SESSION_ID, "turn-begin-failure", text="start"))
    start_failure = start_rejection(anext(iterator))

    await wait_for(lambda: stopped_failure is not None)
    assert stopped_failure is not None
    ownership_failure = await within(stopped_failure, "concurrent stop ownership")
    assert contains_failure(ownership_failure, startup_failure) is True
    assert backend.send_calls == 0
    assert contains_failure(await within(start_failure, "failed Run start"), startup_failure)
    await close_quietly(iterator)


async def test_stop_during_owner_bind_waits_for_exact_close_and_reports_its_failure_once() -> None:
    store = await spec_store()
    backends = BackendRegistry()
    backend = BlockingBackend(SESSION_ID)
    backends.register("fake", lambda header: backend)
    close_failure = RuntimeError("bind-race close rejected")
    close_started = asyncio.Event()
    release_close = asyncio.Event()
    close_calls = 0
    owners: list[FakeInteractionOwner] = []
    stopped: asyncio.Future[Any] | None = None
    stopped_failure: asyncio.Future[BaseException] | None = None
    kernel: RuntimeKernel

    async def close() -> None:
        nonlocal close_calls
        close_calls += 1
        close_started.set()
        await release_close.wait()
        raise close_failure

    class Authority:
        def bind_run(self, identity: RunIdentity, responder: Any) -> FakeInteractionOwner:
            nonlocal stopped, stopped_failure
            stopped = kernel.stop_session(SESSION_ID, source="stop_button")
            stopped_failure = start_rejection(stopped)
            owner = FakeInteractionOwner(identity, close=close, release_allowed=False)
            owners.append(owner)
            return owner

    ids = Ids("bind-race-id")
    kernel = RuntimeKernel(
        store=store,
        backends=backends,
        interaction_authority=Authority(),
        new_id=ids.new_id,
        now=ids.now,
    )
    iterator = aiter(kernel.start_turn(SESSION_ID, "turn-bind-race", text="start"))
    first_failure = start_rejection(anext(iterator))

    await wait_for(lambda: stopped is not None and stopped_failure is not None)
    assert stopped_failure is not None
    await close_started.wait()
    release_close.set()
    failure = await stopped_failure
    assert contains_failure(failure, close_failure) is True
    assert close_calls == 1
    assert len(backend.stop_calls) == 1

    await first_failure
    await close_quietly(iterator)
    assert close_calls == 1
    assert [owner.release_calls for owner in owners] == [0]


async def test_legacy_question_responder_fails_closed_when_hosted_authority_is_configured() -> None:
    fixture = await runtime_fixture(close_succeeds=True)
    with pytest.raises(RuntimeInteractionInvariantError):
        await fixture.kernel.respond_to_user_question(SESSION_ID, "hosted-question", ["Yes"])


async def test_explicit_stop_starts_backend_cleanup_before_deferred_close_settles_and_reports_both_failures() -> (  # noqa: E501
    None
):
    stop_failure = RuntimeError("backend stop rejected")
    fixture = await runtime_fixture(deferred_close=True, stop_failure=stop_failure)
    iterator = aiter(fixture.kernel.start_turn(SESSION_ID, "turn-explicit-stop", text="start"))

    assert (await anext(iterator)).type == "text_delta"
    stopped = fixture.kernel.stop_session(SESSION_ID, source="stop_button")

    await fixture.close_started.wait()
    assert len(fixture.backend.stop_calls) == 1
    fixture.release_close()

    failure = await rejection_of(stopped)
    assert isinstance(failure, RuntimeOwnerCleanupError)
    assert contains_failure(failure, fixture.close_failure) is True
    assert contains_failure(failure, stop_failure) is True
    await close_quietly(iterator)
    assert fixture.release_calls == 0


async def test_abandoned_consumer_starts_backend_cleanup_before_deferred_close_settles() -> None:
    fixture = await runtime_fixture(deferred_close=True)
    iterator = aiter(fixture.kernel.start_turn(SESSION_ID, "turn-abandoned", text="start"))

    assert (await anext(iterator)).type == "text_delta"
    abandoned = start_rejection(iterator.aclose())

    await fixture.close_started.wait()
    assert len(fixture.backend.stop_calls) == 1
    fixture.release_close()

    failure = await abandoned
    assert_canonical_close_failure(failure, fixture.close_failure)
    assert fixture.release_calls == 0


async def test_multiple_owner_cleanup_failures_retain_one_fail_stop_marker() -> None:
    message_release_failure = RuntimeError("message owner release rejected")
    fixture = await runtime_fixture(message_release_failure=message_release_failure)
    iterator = aiter(
        fixture.kernel.start_turn(SESSION_ID, "turn-multiple-owner-failures", text="start")
    )
    draining = start_rejection(drain_iterator(iterator))
    await wait_for(lambda: fixture.backend.send_calls == 1)

    fixture.backend.release_blocked_send()
    failure = await draining

    assert isinstance(failure, RuntimeOwnerCleanupError)
    assert contains_failure(failure, fixture.close_failure) is True
    assert contains_failure(failure, message_release_failure) is True
    assert fail_stop_markers(failure) == 1
    assert fixture.release_calls == 0


async def test_explicit_stop_and_iterator_cleanup_share_one_pending_backend_stop_attempt() -> None:
    stop_failure = RuntimeError("shared backend stop rejected")
    fixture = await runtime_fixture(
        close_succeeds=True, deferred_stop=True, stop_failure=stop_failure
    )
    iterator = aiter(fixture.kernel.start_turn(SESSION_ID, "turn-concurrent-stop", text="start"))

    assert (await anext(iterator)).type == "text_delta"
    stopped = fixture.kernel.stop_session(SESSION_ID, source="stop_button", mode="after_step")
    await fixture.backend.stop_started.wait()

    abandoned = start_rejection(iterator.aclose())
    await asyncio.sleep(0)
    assert fixture.backend.stop_calls == [{"reason": "user_stop", "mode": "after_step"}]

    fixture.backend.release_stop()
    explicit_failure, cleanup_failure = await asyncio.gather(rejection_of(stopped), abandoned)

    assert explicit_failure is stop_failure
    assert cleanup_failure is stop_failure
    assert len(fixture.backend.stop_calls) == 1


async def test_public_stop_rejection_with_a_blocked_send_actively_disposes_the_backend() -> None:
    stop_failure = RuntimeError("stop rejected without releasing send")
    fixture = await runtime_fixture(
        close_succeeds=True,
        stop_failure=stop_failure,
        release_send_on_stop=False,
        release_send_on_dispose=False,
    )
    iterator = aiter(fixture.kernel.start_turn(SESSION_ID, "turn-blocked-send", text="start"))

    assert (await anext(iterator)).type == "text_delta"
    failure = await rejection_of(fixture.kernel.stop_session(SESSION_ID, source="stop_button"))

    assert contains_failure(failure, stop_failure) is True
    assert fixture.backend.dispose_calls == 1
    retry_failure = await rejection_of(
        fixture.kernel.stop_session(SESSION_ID, source="stop_button")
    )
    assert contains_failure(retry_failure, stop_failure) is True
    assert len(fixture.backend.stop_calls) == 1
    messages = await fixture.store.read_messages(SESSION_ID)
    assert count(messages, type="turn_state", turn_id="turn-blocked-send", status="aborted") == 1
    assert count(messages, type="system_note", kind="abort") == 1

    blocked_activation = aiter(
        fixture.kernel.start_turn(SESSION_ID, "turn-before-runner-settled", text="must not send")
    )
    with pytest.raises(Exception, match="quarantined"):
        await anext(blocked_activation)
    assert fixture.backend.send_calls == 1

    fixture.backend.release_blocked_send()
    await drain_iterator(iterator)


async def test_a_generation_stopped_after_run_reservation_cannot_send_on_the_stale_backend() -> (
    None
):
    store = await spec_store()
    backends = BackendRegistry()
    backend = BlockingBackend(
        SESSION_ID,
        stop_failure=RuntimeError("reserved generation stop failed"),
        release_send_on_stop=False,
        release_send_on_dispose=False,
    )
    backends.register("fake", lambda header: backend)
    second_reserved = asyncio.Event()
    release_second = asyncio.Event()
    reservations = 0

    async def run_backend_activation(operation: Any) -> Any:
        nonlocal reservations
        result = await operation()
        reservations += 1
        if reservations == 2:
            second_reserved.set()
            await release_second.wait()
        return result

    ids = Ids("reservation-id")
    kernel = RuntimeKernel(
        store=store,
        backends=backends,
        new_id=ids.new_id,
        now=ids.now,
        run_backend_activation=run_backend_activation,
    )

    first = aiter(kernel.start_turn(SESSION_ID, "turn-reservation-1", text="first"))
    assert (await anext(first)).type == "text_delta"
    second = aiter(kernel.start_turn(SESSION_ID, "turn-reservation-2", text="second"))
    second_event = asyncio.ensure_future(anext(second, None))
    await second_reserved.wait()

    with pytest.raises(Exception, match="reserved generation stop failed"):
        await kernel.stop_session(SESSION_ID, source="stop_button")
    assert backend.dispose_calls == 1
    assert backend.send_calls == 1

    release_second.set()
    assert await second_event is None  # the iterator is done
    assert backend.send_calls == 1

    backend.release_blocked_send()
    with contextlib.suppress(Exception):
        await drain_iterator(first)


async def test_a_failed_stop_operation_is_not_reused_by_the_next_backend_run_generation() -> None:
    store = await spec_store()
    backends = BackendRegistry()
    built: list[BlockingBackend] = []

    def build(header: Any) -> BlockingBackend:
        if not built:
            backend = BlockingBackend(
                SESSION_ID,
                stop_failure=RuntimeError("first generation stop failed"),
                release_send_on_stop=False,
            )
        else:
            backend = BlockingBackend(SESSION_ID)
        built.append(backend)
        return backend

    backends.register("fake", build)
    ids = Ids("generation-id")
    kernel = RuntimeKernel(store=store, backends=backends, new_id=ids.new_id, now=ids.now)

    first = aiter(kernel.start_turn(SESSION_ID, "turn-generation-1", text="first"))
    assert (await anext(first)).type == "text_delta"
    with pytest.raises(Exception, match="first generation stop failed"):
        await kernel.stop_session(SESSION_ID, source="stop_button", mode="after_step")
    await drain_iterator(first)
    assert built[0].dispose_calls == 1
    assert built[0].stop_calls == [{"reason": "user_stop", "mode": "after_step"}]
    first_messages = await store.read_messages(SESSION_ID)
    assert (
        count(first_messages, type="turn_state", turn_id="turn-generation-1", status="aborted") == 1
    )
    assert count(first_messages, type="system_note", kind="abort") == 1

    second = aiter(kernel.start_turn(SESSION_ID, "turn-generation-2", text="second"))
    assert (await anext(second)).type == "text_delta"
    await kernel.stop_session(SESSION_ID, source="stop_button", mode="immediate")
    await close_quietly(second)

    assert len(built) == 2
    assert built[1].stop_calls[0] == {"reason": "user_stop", "mode": "immediate"}
    assert not any(call["mode"] == "after_step" for call in built[1].stop_calls)


async def test_disposal_failure_permanently_quarantines_the_session_from_backend_activation() -> (
    None
):
    store = await spec_store()
    backends = BackendRegistry()
    built: list[BlockingBackend] = []
    stop_failure = RuntimeError("backend stop failed")
    dispose_failure = RuntimeError("backend disposal failed")

    def build(header: Any) -> BlockingBackend:
        backend = BlockingBackend(
            SESSION_ID,
            stop_failure=stop_failure,
            dispose_failure=dispose_failure,
            release_send_on_dispose=False,
            release_send_on_stop=False,
        )
        built.append(backend)
        return backend

    backends.register("fake", build)
    ids = Ids("quarantine-id")
    kernel = RuntimeKernel(store=store, backends=backends, new_id=ids.new_id, now=ids.now)

    first = aiter(kernel.start_turn(SESSION_ID, "turn-quarantine-1", text="first"))
    assert (await anext(first)).type == "text_delta"
    stopped = await rejection_of(kernel.stop_session(SESSION_ID, source="stop_button"))
    assert contains_failure(stopped, stop_failure) is True
    assert contains_failure(stopped, dispose_failure) is True
    with pytest.raises(Exception, match="backend disposal failed") as invalidated:
        await kernel.invalidate_cached_backends()
    # The stored disposal failure itself is re-reported; the backend is not disposed again.
    assert contains_failure(invalidated.value, dispose_failure) is True
    assert built[0].dispose_calls == 1
    built[0].release_blocked_send()
    await drain_iterator(first)
    assert built[0].dispose_calls == 1

    for turn_id in ("turn-quarantine-2", "turn-quarantine-3"):
        blocked = aiter(kernel.start_turn(SESSION_ID, turn_id, text="must not build"))
        with pytest.raises(Exception, match="permanently quarantined"):
            await anext(blocked)
    assert len(built) == 1
    assert built[0].dispose_calls == 1
