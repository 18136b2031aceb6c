"""State the kernel's parts share: dependencies, per-session runtime, admission."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from kernel_service.core.backend import BackendRegistry
from kernel_service.core.errors import (
    HostDrainingError,
    KernelError,
    PersistenceFailedError,
    SessionPermanentlyQuarantinedError,
    SessionQuarantinedError,
    describe,
)
from kernel_service.core.interactions.owners import InteractionAuthority, MessageAuthority
from kernel_service.core.log.events import StoredMessage, SystemNote
from kernel_service.core.log.session_log import MAX_ENTRY_BYTES, SessionLog
from kernel_service.core.store import SessionStore
from kernel_service.core.turns.generation import Generation
from kernel_service.core.turns.run import Run
from kernel_service.core.turns.turn_ends import PendingTurnEnds
from maka_common.aio import TaskOwner

log = logging.getLogger("kernel_service.core")

T = TypeVar("T")


class BackendActivation(Protocol):
    """Wraps every backend activation (building or reusing a generation and reserving a run)."""

    def __call__(self, operation: Callable[[], Awaitable[T]], /) -> Awaitable[T]: ...


async def run_directly(operation: Callable[[], Awaitable[T]], /) -> T:
    return await operation()


@dataclass(eq=False)
class SessionRuntime:
    """What the kernel holds in memory for one session."""

    session_id: str
    log: SessionLog
    generation: Generation | None = None
    generations_built: int = 0
    failed_disposals: list[Generation] = field(default_factory=list)
    active_run: Run | None = None
    stop_epoch: int = 0
    resumed: bool = False

    @property
    def permanent_failure(self) -> Exception | None:
        generations = [*self.failed_disposals, self.generation]
        for generation in generations:
            if generation is not None and generation.dispose_failure is not None:
                return generation.dispose_failure
        return None

    def note_generation(self, generation: Generation) -> None:
        """Track a generation that failed its disposal (for quarantine and re-reporting)."""
        if generation.dispose_failure is not None and generation not in self.failed_disposals:
            self.failed_disposals.append(generation)

    def is_current(self, generation: Generation) -> bool:
        return self.generation is generation and generation.active


@dataclass(eq=False)
class KernelContext:
    store: SessionStore
    backends: BackendRegistry
    interaction_authority: InteractionAuthority | None
    message_authority: MessageAuthority | None
    new_id: Callable[[], str]
    now: Callable[[], int]
    run_backend_activation: BackendActivation
    tasks: TaskOwner = field(default_factory=TaskOwner)
    sessions: dict[str, SessionRuntime] = field(default_factory=dict)
    draining: bool = False
    #: The largest log entry (see :data:`~kernel_service.core.log.session_log.MAX_ENTRY_BYTES`).
    max_event_bytes: int = MAX_ENTRY_BYTES
    #: Turn ends the store refused, recorded again until it takes them.
    turn_ends: PendingTurnEnds = field(init=False)

    def __post_init__(self) -> None:
        self.turn_ends = PendingTurnEnds(
            append=self.append,
            update_header=self.store.update_header,
            tasks=self.tasks,
            new_id=self.new_id,
            now=self.now,
        )

    def session(self, session_id: str) -> SessionRuntime:
        runtime = self.sessions.get(session_id)
        if runtime is None:
            session_log = SessionLog(
                session_id, self.store, self.tasks, max_entry_bytes=self.max_event_bytes
            )
            runtime = SessionRuntime(session_id, session_log)
            self.sessions[session_id] = runtime
        return runtime

    def admission_failure(self, runtime: SessionRuntime) -> KernelError | None:
        """Why a new turn may not start on this session now, if it may not."""
        if self.draining:
            return HostDrainingError()
        failure = runtime.permanent_failure
        if failure is not None:
            return SessionPermanentlyQuarantinedError(runtime.session_id, failure)
        waiting = self.turn_ends.waiting_turn(runtime.session_id)
        if waiting is not None:
            return PersistenceFailedError(
                f"the end of turn {waiting!r} of session {runtime.session_id!r} is not recorded "
                "yet: the session store refuses writes; retry once it takes them again"
            )
        run = runtime.active_run
        if run is not None and run.stopped:
            return SessionQuarantinedError(
                runtime.session_id, f"stopped turn {run.turn_id!r} has not settled yet"
            )
        return None

    async def append(self, session_id: str, messages: Sequence[StoredMessage]) -> list[Any]:
        return await self.session(session_id).log.append(messages)

    async def mark_blocked(self, session_id: str) -> Exception | None:
        """Header status ``blocked`` for a permanently quarantined session; return a failure."""
        now = self.now()
        try:
            await self.store.update_header(
                session_id, {"status": "blocked", "status_updated_at": now}
            )
        except asyncio.CancelledError:
            raise
        except Exception as failure:
            return failure
        return None

    async def record_failure(
        self, session_id: str, turn_id: str, what: str, failure: Exception
    ) -> None:
        """Put a failure on the record (system note) and in the log; never raises."""
        log.error("%s (session %s, turn %s): %s", what, session_id, turn_id, describe(failure))
        note = SystemNote(
            kind="error",
            text=f"{what}: {failure}",
            turn_id=turn_id,
            ts=self.now(),
            id=self.new_id(),
        )
        try:
            await self.append(session_id, [note])
        except asyncio.CancelledError:
            raise
        except Exception as note_failure:
            log.error(
                "could not record a failure of session %s: %s", session_id, describe(note_failure)
            )
