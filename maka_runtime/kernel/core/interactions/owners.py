"""Run owners: the interaction authority and the message authority bound to one run.

After a run has begun, the kernel binds it to each configured authority and gets an *owner*
back. The interaction owner accepts the run's sandbox-boundary requests and user questions and
must be ``close``\\ d (with a reason) before it is ``release``\\ d; a failed close keeps the owner,
so ``release`` is then never called. The message owner hands the backend messages sent into the
run (``pull``) and learns what became of them (``ack``/``nack``) until it is released.

:class:`InteractionOwnerHandle` and :class:`MessageOwnerHandle` are the kernel's side: close is
single-flight (every caller awaits the same attempt and sees the same error object) and survives
the cancellation of any one caller.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from maka_runtime.common.aio import TaskOwner
from maka_runtime.kernel.core.backend import QueuedMessage
from maka_runtime.kernel.core.errors import (
    RuntimeInteractionFailStopError,
    RuntimeOwnerCleanupError,
)
from maka_runtime.kernel.core.log.events import SandboxBoundaryRequest, UserQuestionRequest
from maka_runtime.kernel.core.store import InteractionRecord

CloseReason = Literal["turn_stopped", "turn_terminal", "timed_out", "host_restarted"]


@dataclass(frozen=True, kw_only=True, slots=True)
class RunIdentity:
    """Who a run is: its session, turn, run id and backend generation."""

    session_id: str
    turn_id: str
    run_id: str
    generation: int


class InteractionResponder(Protocol):
    """Where an authority delivers resolutions; the kernel records them and tells the backend."""

    async def resolved(self, record: InteractionRecord) -> None: ...


class InteractionOwner(Protocol):
    async def accept_sandbox_boundary_request(self, request: SandboxBoundaryRequest) -> None: ...

    async def accept_user_question_request(self, request: UserQuestionRequest) -> None: ...

    def close(self, reason: CloseReason) -> Awaitable[None]: ...

    def release(self) -> None: ...


class InteractionAuthority(Protocol):
    def bind_run(
        self, identity: RunIdentity, responder: InteractionResponder
    ) -> InteractionOwner: ...


class MessageOwner(Protocol):
    def pull(self) -> Sequence[QueuedMessage]: ...

    def ack(self, message_ids: Sequence[str]) -> None: ...

    def nack(self, message_ids: Sequence[str], reason: str) -> None: ...

    def release(self) -> None: ...


class MessageAuthority(Protocol):
    def bind_run(self, identity: RunIdentity) -> MessageOwner: ...


class InteractionOwnerHandle:
    """The kernel's grip on an interaction owner: one close, release only after it succeeded."""

    def __init__(self, owner: InteractionOwner, tasks: TaskOwner) -> None:
        self.owner = owner
        self._tasks = tasks
        self._close: asyncio.Task[None] | None = None
        self._released = False

    @property
    def closing(self) -> bool:
        return self._close is not None

    @property
    def closed_cleanly(self) -> bool:
        close = self._close
        return (
            close is not None
            and close.done()
            and not close.cancelled()
            and (close.exception() is None)
        )

    async def close(self, reason: CloseReason) -> None:
        """Close once; a failure raises the same :class:`RuntimeInteractionFailStopError`."""
        if self._close is None:
            self._close = self._tasks.spawn(self._run_close(reason), name="interaction-close")
        await asyncio.shield(self._close)

    async def _run_close(self, reason: CloseReason) -> None:
        try:
            await self.owner.close(reason)
        except Exception as failure:
            raise RuntimeInteractionFailStopError(failure) from failure

    def release(self) -> Exception | None:
        """Release after a clean close; return (not raise) a release failure."""
        if self._released or not self.closed_cleanly:
            return None
        self._released = True
        try:
            self.owner.release()
        except Exception as failure:
            return RuntimeOwnerCleanupError(failure)
        return None


class MessageOwnerHandle:
    """The kernel's grip on a message owner: release exactly once."""

    def __init__(self, owner: MessageOwner) -> None:
        self.owner = owner
        self._released = False

    def release(self) -> Exception | None:
        if self._released:
            return None
        self._released = True
        try:
            self.owner.release()
        except Exception as failure:
            return RuntimeOwnerCleanupError(failure)
        return None
