"""The hosted interaction authority: durable requests, answered once, closed with a reason.

When a run's backend raises a sandbox-boundary request or a user question, the run's owner
stores it (``pending``) before the kernel records and streams it. It then ends exactly once:

* ``answered`` through :meth:`HostedInteractionAuthority.answer_sandbox_boundary` /
  :meth:`~HostedInteractionAuthority.answer_user_question` — a second answer gets
  :class:`~maka_runtime.kernel.core.errors.InteractionAlreadyResolvedError`;
* ``timed_out`` when an ``answer_timeout`` is configured and passes: the request is *denied*
  (fails closed) and the record says why;
* ``closed`` with the owner's close reason when the turn stops or ends, or ``host_restarted`` by
  the start-up sweep when the process that owned it died.

The store's compare-and-set decides races (an answer against a timeout or a close): exactly one
resolution wins. The winner is delivered to the run's responder, which records it in the log and
tells the backend (a denial unless answered).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from maka_runtime.common.aio import TaskOwner
from maka_runtime.kernel.core.errors import (
    InteractionAlreadyResolvedError,
    InvalidRequestError,
    NotFoundError,
    RuntimeInteractionInvariantError,
    describe,
)
from maka_runtime.kernel.core.interactions.owners import (
    CloseReason,
    InteractionResponder,
    RunIdentity,
)
from maka_runtime.kernel.core.log.events import (
    SANDBOX_DECISIONS,
    InteractionKind,
    SandboxBoundaryRequest,
    UserQuestionRequest,
)
from maka_runtime.kernel.core.store import InteractionRecord, InteractionStore, Resolution
from maka_runtime.kernel.core.turns.run import Run

log = logging.getLogger("maka_runtime.kernel.core")


class Cancellable(Protocol):
    def cancel(self) -> None: ...


Scheduler = Callable[[float, Callable[[], None]], Cancellable]


@runtime_checkable
class AnsweringAuthority(Protocol):
    """An interaction authority that takes answers from clients."""

    async def answer_sandbox_boundary(
        self, session_id: str, request_id: str, decision: str, reason: str = ""
    ) -> InteractionRecord: ...

    async def answer_user_question(
        self, session_id: str, request_id: str, answers: Sequence[str]
    ) -> InteractionRecord: ...


def _loop_scheduler(delay: float, callback: Callable[[], None]) -> Cancellable:
    return asyncio.get_running_loop().call_later(delay, callback)


class HostedInteractionAuthority:
    def __init__(
        self,
        store: InteractionStore,
        *,
        now: Callable[[], int],
        answer_timeout: float | None = None,
        schedule: Scheduler | None = None,
    ) -> None:
        if answer_timeout is not None and answer_timeout <= 0:
            raise ValueError("answer_timeout must be positive")
        #: Where requests are kept (shared with the owners this authority binds).
        self.store = store
        self.now = now
        self.answer_timeout = answer_timeout
        self._schedule = schedule or _loop_scheduler
        self._owners: dict[str, HostedInteractionOwner] = {}
        self._tasks = TaskOwner()

    def bind_run(
        self, identity: RunIdentity, responder: InteractionResponder
    ) -> HostedInteractionOwner:
        owner = HostedInteractionOwner(self, identity, responder)
        self._owners[identity.run_id] = owner
        return owner

    def unbind(self, run_id: str) -> None:
        self._owners.pop(run_id, None)

    @property
    def live_runs(self) -> int:
        return len(self._owners)

    async def answer_sandbox_boundary(
        self, session_id: str, request_id: str, decision: str, reason: str = ""
    ) -> InteractionRecord:
        if decision not in SANDBOX_DECISIONS:
            raise InvalidRequestError("decision", f"must be one of {', '.join(SANDBOX_DECISIONS)}")
        record = await self._pending_of(session_id, request_id, "sandbox_boundary")
        request = record.request
        assert isinstance(request, SandboxBoundaryRequest)
        # allow_session widens the session's boundary in the transaction that records it.
        widen = request.expansion if decision == "allow_session" else ()
        resolution = Resolution(status="answered", decision=decision, reason=reason, widen=widen)
        return await self._resolve(session_id, request_id, resolution)

    async def answer_user_question(
        self, session_id: str, request_id: str, answers: Sequence[str]
    ) -> InteractionRecord:
        record = await self._pending_of(session_id, request_id, "user_question")
        request = record.request
        assert isinstance(request, UserQuestionRequest)
        if request.options:
            unknown = [answer for answer in answers if answer not in request.options]
            if unknown:
                raise InvalidRequestError(
                    "answers", f"{unknown[0]!r} is not one of {', '.join(request.options)}"
                )
        resolution = Resolution(status="answered", answers=tuple(answers))
        return await self._resolve(session_id, request_id, resolution)

    async def _pending_of(
        self, session_id: str, request_id: str, kind: InteractionKind
    ) -> InteractionRecord:
        record = await self.store.get_interaction(session_id, request_id)
        if record is None:
            raise NotFoundError("interaction request", request_id, f"in session {session_id!r}")
        if record.kind != kind:
            raise InvalidRequestError(
                "request_id", f"{request_id!r} is a {record.kind.replace('_', ' ')} request"
            )
        if record.status != "pending":
            raise InteractionAlreadyResolvedError(request_id, record.status, record.reason)
        return record

    async def _resolve(
        self, session_id: str, request_id: str, resolution: Resolution
    ) -> InteractionRecord:
        # Once the answer is recorded it must reach the backend even if whoever answered goes
        # away mid-way (a cancelled RPC): the work runs in a task the authority owns.
        task = self._tasks.spawn(
            self._resolve_and_deliver(session_id, request_id, resolution),
            name=f"interaction-resolve-{request_id}",
        )
        return await asyncio.shield(task)

    async def _resolve_and_deliver(
        self, session_id: str, request_id: str, resolution: Resolution
    ) -> InteractionRecord:
        resolved = await self.store.resolve_interaction(
            session_id, request_id, resolution, self.now()
        )
        await self._deliver(resolved)
        return resolved

    async def _deliver(self, record: InteractionRecord) -> None:
        owner = self._owners.get(record.run_id)
        if owner is None:
            return
        owner.forget(record.request_id)
        await owner.responder.resolved(record)

    def arm(self, owner: HostedInteractionOwner, request_id: str) -> Cancellable | None:
        """Start the answer timeout of *request_id* (``None`` without a timeout)."""
        timeout = self.answer_timeout
        if timeout is None:
            return None

        def expire() -> None:
            self._tasks.spawn(
                self._expire(owner, request_id, seconds=timeout),
                name="interaction-timeout",
                log_failure=True,
            )

        return self._schedule(timeout, expire)

    async def _expire(
        self, owner: HostedInteractionOwner, request_id: str, *, seconds: float
    ) -> None:
        resolution = Resolution(
            status="timed_out",
            decision="deny",
            reason=f"timed_out: no answer within {seconds:g} s, denied",
        )
        try:
            await self._resolve(owner.identity.session_id, request_id, resolution)
        except InteractionAlreadyResolvedError:
            return

    async def aclose(self) -> None:
        for owner in list(self._owners.values()):
            owner.cancel_timers()
        await self._tasks.close()


class HostedInteractionOwner:
    """One run's binding to the hosted authority."""

    def __init__(
        self,
        authority: HostedInteractionAuthority,
        identity: RunIdentity,
        responder: InteractionResponder,
    ) -> None:
        self._authority = authority
        self.identity = identity
        self.responder = responder
        self._timers: dict[str, Cancellable | None] = {}
        self._closed = False

    async def accept_sandbox_boundary_request(self, request: SandboxBoundaryRequest) -> None:
        await self._accept("sandbox_boundary", request)

    async def accept_user_question_request(self, request: UserQuestionRequest) -> None:
        await self._accept("user_question", request)

    async def _accept(
        self, kind: InteractionKind, request: SandboxBoundaryRequest | UserQuestionRequest
    ) -> None:
        if self._closed:
            raise RuntimeInteractionInvariantError(
                f"turn {self.identity.turn_id!r} is closed for interaction requests"
            )
        identity = self.identity
        record = InteractionRecord(
            session_id=identity.session_id,
            request_id=request.request_id,
            turn_id=identity.turn_id,
            run_id=identity.run_id,
            kind=kind,
            request=request,
            created_at=self._authority.now(),
        )
        await self._authority.store.put_interaction(record)
        self._timers[request.request_id] = self._authority.arm(self, request.request_id)

    def forget(self, request_id: str) -> None:
        timer = self._timers.pop(request_id, None)
        if timer is not None:
            timer.cancel()

    def cancel_timers(self) -> None:
        for request_id in list(self._timers):
            self.forget(request_id)

    async def close(self, reason: CloseReason) -> None:
        self._closed = True
        self.cancel_timers()
        authority = self._authority
        closed = await authority.store.close_interactions(
            self.identity.session_id, self.identity.run_id, reason, authority.now()
        )
        for record in closed:
            try:
                await self.responder.resolved(record)
            except asyncio.CancelledError:
                raise
            except Exception as failure:
                # The request is durably closed; telling a stopping backend is best effort.
                log.warning(
                    "could not deliver the close of request %s: %s",
                    record.request_id,
                    describe(failure),
                )

    def release(self) -> None:
        self._authority.unbind(self.identity.run_id)


def legacy_answer(run: Run, request_id: str, answers: Sequence[str], now: int) -> InteractionRecord:
    """The resolution the legacy direct responder delivers (no durable record behind it)."""
    return InteractionRecord(
        session_id=run.session_id,
        request_id=request_id,
        turn_id=run.turn_id,
        run_id=run.run_id,
        kind="user_question",
        request=UserQuestionRequest(turn_id=run.turn_id, request_id=request_id, question=""),
        status="answered",
        answers=tuple(answers),
        resolved_at=now,
    )
