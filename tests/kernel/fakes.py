"""The spec's test doubles: a blocking backend, fault-injecting owners, helpers.

Everything here mirrors ``runtime-kernel-interaction.test.ts``: ``BlockingBackend`` blocks its
send after one ``text_delta`` until released (by ``stop``, ``dispose`` or the test); its stop and
dispose can be deferred or made to fail. ``wait_for`` yields to the event loop a bounded number
of times (it never sleeps).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from maka_runtime.kernel.core import (
    BackendRegistry,
    BackendSendInput,
    RunIdentity,
    RuntimeInteractionFailStopError,
    RuntimeKernel,
    RuntimeOwnerCleanupError,
    SandboxBoundaryResponse,
    SessionHeader,
    UserQuestionResponse,
)
from maka_runtime.kernel.core.log.events import BackendEvent, Complete, TextDelta
from maka_runtime.kernel.store import MemorySessionStore

SESSION_ID = "session-interaction-cleanup"
WORKSPACE = "/tmp/maka-runtime-kernel-interaction"
# Sessions need a workspace root that exists.
os.makedirs(WORKSPACE, exist_ok=True)


def spec_header(session_id: str = SESSION_ID, backend: str = "fake") -> SessionHeader:
    return SessionHeader(
        id=session_id,
        workspace_root=WORKSPACE,
        cwd=WORKSPACE,
        created_at=1,
        last_used_at=1,
        name="Interaction cleanup",
        title_is_manual=True,
        is_flagged=False,
        labels=(),
        is_archived=False,
        status="active",
        status_updated_at=1,
        has_unread=False,
        backend=backend,
        llm_connection_slug="test",
        connection_locked=True,
        model="test",
        permission_mode="bypass",
        schema_version=1,
    )


async def spec_store() -> MemorySessionStore:
    """The spec's ``memoryStore()``: one session with the spec's header."""
    store = MemorySessionStore()
    await store.create(spec_header())
    return store


class Ids:
    """The spec's ``newId``/``now`` pair: ids count up, the clock reads the counter."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.value = 0

    def new_id(self) -> str:
        self.value += 1
        return f"{self.prefix}-{self.value}"

    def now(self) -> int:
        return self.value


class BlockingBackend:
    def __init__(
        self,
        session_id: str,
        *,
        deferred_stop: bool = False,
        stop_failure: Exception | None = None,
        dispose_failure: Exception | None = None,
        release_send_on_dispose: bool = True,
        release_send_on_stop: bool = True,
    ) -> None:
        self.session_id = session_id
        self.kind = "fake"
        self.deferred_stop = deferred_stop
        self.stop_failure = stop_failure
        self.dispose_failure = dispose_failure
        self.release_send_on_dispose = release_send_on_dispose
        self.release_send_on_stop = release_send_on_stop
        self.stop_calls: list[dict[str, str | None]] = []
        self.stop_started = asyncio.Event()
        self.dispose_calls = 0
        self.send_calls = 0
        self.responses: list[Any] = []
        self._stop_released = asyncio.Event()
        self._send_released = asyncio.Event()

    async def send(self, input: BackendSendInput) -> AsyncIterator[BackendEvent]:
        self.send_calls += 1
        yield TextDelta(
            id=f"{input.turn_id}-delta",
            turn_id=input.turn_id,
            ts=1,
            message_id=f"{input.turn_id}-message",
            text="started",
        )
        await self._send_released.wait()
        yield Complete(
            id=f"{input.turn_id}-complete", turn_id=input.turn_id, ts=2, stop_reason="user_stop"
        )

    async def stop(self, reason: str, mode: str | None = None) -> None:
        self.stop_calls.append({"reason": reason, "mode": mode})
        self.stop_started.set()
        if self.deferred_stop:
            await self._stop_released.wait()
        if self.release_send_on_stop:
            self._send_released.set()
        if self.stop_failure is not None:
            raise self.stop_failure

    def release_stop(self) -> None:
        self._stop_released.set()

    def release_blocked_send(self) -> None:
        self._send_released.set()

    async def respond_to_sandbox_boundary(self, response: SandboxBoundaryResponse) -> None:
        self.responses.append(response)

    async def respond_to_user_question(self, response: UserQuestionResponse) -> None:
        self.responses.append(response)

    async def dispose(self) -> None:
        self.dispose_calls += 1
        if self.release_send_on_dispose:
            self._send_released.set()
        if self.dispose_failure is not None:
            raise self.dispose_failure


class FakeInteractionOwner:
    """An owner whose close can be held open and made to fail; release after a failed close
    is a protocol violation and is counted (and raised) so tests can assert it never happens."""

    def __init__(
        self,
        identity: RunIdentity,
        *,
        close: Callable[[], Awaitable[None]],
        release_allowed: bool,
    ) -> None:
        self.identity = identity
        self._close = close
        self._release_allowed = release_allowed
        self.release_calls = 0
        self.accepted: list[Any] = []

    async def accept_sandbox_boundary_request(self, request: Any) -> None:
        self.accepted.append(request)

    async def accept_user_question_request(self, request: Any) -> None:
        self.accepted.append(request)

    async def close(self, reason: str) -> None:
        await self._close()

    def release(self) -> None:
        self.release_calls += 1
        if not self._release_allowed:
            raise AssertionError("a Run with failed durable close must not release")


class FakeMessageOwner:
    def __init__(self, identity: RunIdentity, release_failure: Exception | None) -> None:
        self.identity = identity
        self._release_failure = release_failure

    def pull(self) -> list[Any]:
        return []

    def ack(self, message_ids: Any) -> None:
        return None

    def nack(self, message_ids: Any, reason: str) -> None:
        return None

    def release(self) -> None:
        if self._release_failure is not None:
            raise self._release_failure


class FakeMessageAuthority:
    def __init__(self, release_failure: Exception | None) -> None:
        self._release_failure = release_failure

    def bind_run(self, identity: RunIdentity) -> FakeMessageOwner:
        return FakeMessageOwner(identity, self._release_failure)


class RuntimeFixture:
    """The spec's ``runtimeFixture(options)``."""

    def __init__(
        self,
        store: MemorySessionStore,
        *,
        close_succeeds: bool = False,
        deferred_close: bool = False,
        deferred_stop: bool = False,
        stop_failure: Exception | None = None,
        dispose_failure: Exception | None = None,
        release_send_on_dispose: bool = True,
        release_send_on_stop: bool = True,
        message_release_failure: Exception | None = None,
    ) -> None:
        self.store = store
        self.backend = BlockingBackend(
            SESSION_ID,
            deferred_stop=deferred_stop,
            stop_failure=stop_failure,
            dispose_failure=dispose_failure,
            release_send_on_dispose=release_send_on_dispose,
            release_send_on_stop=release_send_on_stop,
        )
        backends = BackendRegistry()
        backends.register("fake", lambda header: self.backend)
        self.close_failure = RuntimeError("durable close rejected")
        self.close_started = asyncio.Event()
        self._close_released = asyncio.Event()
        self._deferred_close = deferred_close
        self._close_succeeds = close_succeeds
        self.owners: list[FakeInteractionOwner] = []
        fixture = self

        class Authority:
            def bind_run(self, identity: RunIdentity, responder: Any) -> FakeInteractionOwner:
                owner = FakeInteractionOwner(
                    identity, close=fixture._close, release_allowed=close_succeeds
                )
                fixture.owners.append(owner)
                return owner

        ids = Ids("id")
        self.kernel = RuntimeKernel(
            store=store,
            backends=backends,
            interaction_authority=Authority(),
            message_authority=(
                FakeMessageAuthority(message_release_failure)
                if message_release_failure is not None
                else None
            ),
            new_id=ids.new_id,
            now=ids.now,
        )

    async def _close(self) -> None:
        self.close_started.set()
        if self._deferred_close:
            await self._close_released.wait()
        if not self._close_succeeds:
            raise self.close_failure

    def release_close(self) -> None:
        self._close_released.set()

    @property
    def release_calls(self) -> int:
        return sum(owner.release_calls for owner in self.owners)


async def runtime_fixture(**options: Any) -> RuntimeFixture:
    return RuntimeFixture(await spec_store(), **options)


async def rejection_of(awaitable: Awaitable[Any]) -> BaseException:
    try:
        await awaitable
    except Exception as error:
        return error
    pytest.fail("expected rejection")


def start_rejection(awaitable: Awaitable[Any]) -> asyncio.Future[BaseException]:
    """Like the spec's ``rejectionOf(promise)`` on an eagerly running promise."""
    return asyncio.ensure_future(rejection_of(awaitable))


def contains_failure(failure: object, expected: object) -> bool:
    """The spec's ``containsFailure``: identity through the kernel's wrappers and groups."""
    if failure is expected:
        return True
    if isinstance(failure, RuntimeOwnerCleanupError) and contains_failure(failure.cause, expected):
        return True
    if isinstance(failure, RuntimeInteractionFailStopError) and contains_failure(
        failure.authority_failure, expected
    ):
        return True
    return isinstance(failure, BaseExceptionGroup) and any(
        contains_failure(nested, expected) for nested in failure.exceptions
    )


def fail_stop_markers(failure: object) -> int:
    """How many :class:`RuntimeInteractionFailStopError` the failure tree holds."""
    if isinstance(failure, RuntimeInteractionFailStopError):
        return 1
    if isinstance(failure, RuntimeOwnerCleanupError):
        return fail_stop_markers(failure.cause)
    if isinstance(failure, BaseExceptionGroup):
        return sum(fail_stop_markers(nested) for nested in failure.exceptions)
    return 0


def assert_canonical_close_failure(failure: object, close_failure: Exception) -> None:
    assert isinstance(failure, RuntimeInteractionFailStopError)
    assert failure.authority_failure is close_failure


async def drain_iterator(iterator: Any) -> None:
    """Read a turn to its end without abandoning it."""
    async for _ in iterator:
        pass


async def close_quietly(iterator: Any) -> None:
    """The spec's ``iterator.return?.(undefined).catch(() => undefined)``."""
    with contextlib.suppress(Exception):
        await iterator.aclose()


async def wait_for(predicate: Callable[[], bool], attempts: int = 200) -> None:
    """Yield to the loop until *predicate* holds (bounded; never sleeps)."""
    for _ in range(attempts):
        if predicate():
            return
        await asyncio.sleep(0)
    pytest.fail("condition was not met")


async def within(awaitable: Awaitable[Any], operation: str, seconds: float = 1.0) -> Any:
    try:
        return await asyncio.wait_for(awaitable, seconds)
    except TimeoutError:
        pytest.fail(f"{operation} timed out")


def counter() -> Callable[[], int]:
    numbers = itertools.count(1)
    return lambda: next(numbers)
