"""Backend generations: one built backend instance with its own stop state.

A session's backend is built lazily and reused across turns; each build is a *generation* with
a monotonic number. Its stop state is ``idle`` → ``pending`` (one shared attempt, whoever asked)
→ back to ``idle`` on success or ``failed``. A failed stop disposes the backend at once; the
generation is then no longer *active*, so the next turn builds a fresh one with a fresh stop
state. If disposal fails too, the failure is kept for re-reporting and the session is
permanently quarantined by the kernel.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from maka_runtime.common.aio import TaskOwner
from maka_runtime.kernel.core.backend import AgentBackend, StopMode, StopReason
from maka_runtime.kernel.core.errors import combine_failures

StopState = Literal["idle", "pending", "failed"]
DisposalState = Literal["live", "disposing", "disposed", "dispose_failed"]


class Generation:
    """One backend instance of one session."""

    def __init__(
        self, session_id: str, number: int, backend: AgentBackend, tasks: TaskOwner
    ) -> None:
        self.session_id = session_id
        self.number = number
        self.backend = backend
        self.reservations: set[str] = set()
        self.runs_started = 0
        self.retire_when_idle = False
        self._tasks = tasks
        self._stop: asyncio.Task[None] | None = None
        self._stop_failure: Exception | None = None
        self._dispose: asyncio.Task[None] | None = None
        self._dispose_failure: Exception | None = None

    @property
    def stop_state(self) -> StopState:
        if self._stop_failure is not None:
            return "failed"
        return "pending" if self._stop is not None else "idle"

    @property
    def disposal_state(self) -> DisposalState:
        if self._dispose is None:
            return "live"
        if not self._dispose.done():
            return "disposing"
        return "dispose_failed" if self._dispose_failure is not None else "disposed"

    @property
    def active(self) -> bool:
        """Usable for a new send: never failed a stop, never (being) disposed."""
        return self._stop_failure is None and self._dispose is None

    @property
    def dispose_failure(self) -> Exception | None:
        return self._dispose_failure

    async def stop(self, reason: StopReason, mode: StopMode | None) -> None:
        """Stop the backend; concurrent callers share one attempt and one error object.

        After a failure every later call re-raises the stored failure without calling the
        backend again.
        """
        if self._stop_failure is not None:
            raise self._stop_failure
        if self._stop is None:
            self._stop = self._tasks.spawn(self._run_stop(reason, mode), name="backend-stop")
        await asyncio.shield(self._stop)

    async def _run_stop(self, reason: StopReason, mode: StopMode | None) -> None:
        try:
            await self.backend.stop(reason, mode)
        except Exception as error:
            stop_failure: Exception = error
        else:
            self._stop = None
            return
        # The backend refused to stop: it may still hold resources or a blocked send, so it is
        # disposed now rather than when its run settles.
        dispose_failure: Exception | None = None
        try:
            await self.dispose()
        except Exception as error:
            dispose_failure = error
        failure = combine_failures([stop_failure, dispose_failure])
        assert failure is not None
        self._stop_failure = failure
        raise failure

    async def dispose(self) -> None:
        """Dispose once; later calls re-raise the same disposal failure, if any."""
        if self._dispose is None:
            self._dispose = self._tasks.spawn(self._run_dispose(), name="backend-dispose")
        await asyncio.shield(self._dispose)

    async def _run_dispose(self) -> None:
        try:
            await self.backend.dispose()
        except Exception as failure:
            self._dispose_failure = failure
            raise
