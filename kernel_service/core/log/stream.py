"""The consumer side of a turn: an async iterator of its session events.

``RuntimeKernel.start_turn`` returns a :class:`TurnStream`. Nothing happens until the first
``__anext__``: it admits the turn (or attaches to the run or record of the same turn id, which
makes a retried start idempotent) and waits until the run either sends, fails to start (the
failure is raised), was stopped before sending (the stop's failure is raised) or went stale
(iteration ends without an event; ``not_started_reason`` says why).

Events are read from the session log after the turn's user message (committed before they are
seen), filtered to this turn's session events without the initial ``turn_state running``.
Iteration ends when the run has settled and every entry of it has been read; failures of the
run's own terminal cleanup are raised then.

Closing the stream before the run has settled (``aclose``, or ``abandon`` when the caller cannot
await) is the *abandoned consumer*: it claims the run's stop (sharing one already in flight) and
``aclose`` raises that stop's failure. The stop runs in a kernel-owned task, so it completes and
records its failures even if the caller is cancelled or gone.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import TYPE_CHECKING

from kernel_service.core.errors import (
    HostDrainingError,
    OperationConflictError,
    SessionArchivedError,
    TurnNotStartedError,
)
from kernel_service.core.log.events import SESSION_EVENT_TYPES, SessionEvent, StoredMessage
from kernel_service.core.log.session_log import SessionLog
from kernel_service.core.turns.run import Run, StartOutcome, StopOutcome

if TYPE_CHECKING:
    from kernel_service.core.kernel import RuntimeKernel

ABANDON_SOURCE = "stream_abandoned"


class TurnStream:
    def __init__(
        self,
        kernel: RuntimeKernel,
        session_id: str,
        turn_id: str,
        text: str,
        *,
        report_not_started: bool = False,
    ) -> None:
        self._kernel = kernel
        self._report_not_started = report_not_started
        self.session_id = session_id
        self.turn_id = turn_id
        self.text = text
        self.not_started_reason = ""
        self.attached = False
        self._state = "new"
        self._run: Run | None = None
        self._log: SessionLog | None = None
        self._cursor = 0
        self._buffer: deque[SessionEvent] = deque()
        self._abandoned = False

    def __aiter__(self) -> TurnStream:
        return self

    @property
    def run(self) -> Run | None:
        return self._run

    async def __anext__(self) -> SessionEvent:
        if self._state == "new":
            self._state = "opening"
            try:
                await self._open()
            except Exception:
                self._state = "done"
                raise
            if self._state == "opening":
                self._state = "open"
        while True:
            if self._buffer:
                return self._buffer.popleft()
            if self._state == "done":
                raise StopAsyncIteration
            assert self._log is not None
            batch = await self._log.read_after(self._cursor)
            if batch:
                self._cursor = batch[-1].seq
                self._buffer.extend(entry for entry in batch if self._wanted(entry))  # type: ignore[misc]
                continue
            run = self._run
            if run is None or run.settled.is_set():
                if self._log.has_after(self._cursor):
                    continue
                self._state = "done"
                if run is not None and run.terminal_failure is not None:
                    raise run.terminal_failure
                raise StopAsyncIteration
            if self._log.closed:
                # The kernel closed under a live run (its readers end, the run is left to the
                # next start-up sweep). A closed log never wakes anyone, so waiting on it would
                # spin; the turn is retried (by its turn id) on a host that runs.
                self._state = "done"
                raise HostDrainingError()
            await self._log.wait()

    def _wanted(self, entry: StoredMessage) -> bool:
        if entry.turn_id != self.turn_id or entry.type not in SESSION_EVENT_TYPES:
            return False
        return not (entry.type == "turn_state" and entry.status == "running")

    async def _open(self) -> None:
        kernel = self._kernel
        ctx = kernel._ctx
        runtime = ctx.session(self.session_id)
        self._log = runtime.log
        active = runtime.active_run
        if active is not None and active.turn_id == self.turn_id:
            self._check_same_text(active.text)
            await self._follow(active, attached=True)
            return
        if ctx.draining:
            # Decided in memory, before the store is touched: a draining host may be closing it.
            raise HostDrainingError()
        header = await ctx.store.read_header(self.session_id)
        active = runtime.active_run
        if active is not None and active.turn_id == self.turn_id:
            self._check_same_text(active.text)
            await self._follow(active, attached=True)
            return
        existing = await ctx.store.get_turn(self.session_id, self.turn_id)
        if existing is not None:
            self._check_same_text(existing.text)
            self.attached = True
            self._cursor = existing.first_seq
            return
        if header.is_archived:
            raise SessionArchivedError(self.session_id)
        refusal = ctx.admission_failure(runtime)
        if refusal is not None:
            raise refusal
        run = Run(
            run_id=ctx.new_id(),
            session_id=self.session_id,
            turn_id=self.turn_id,
            text=self.text,
            epoch=runtime.stop_epoch,
            start_outcome=asyncio.get_running_loop().create_future(),
            header=header,
        )
        kernel._runner.launch(run)
        await self._follow(run, attached=False)

    def _check_same_text(self, text: str) -> None:
        if text != self.text:
            raise OperationConflictError(
                f"turn {self.turn_id!r} already exists with a different text; "
                "use a new turn id for a new turn"
            )

    async def _follow(self, run: Run, *, attached: bool) -> None:
        self._run = run
        self.attached = attached
        outcome = await asyncio.shield(run.start_outcome)
        if outcome is StartOutcome.STALE:
            self.not_started_reason = run.stale_reason
            self._state = "done"
            if self._report_not_started:
                raise TurnNotStartedError(self.turn_id, run.stale_reason)
            return
        if outcome is StartOutcome.STOPPED:
            assert run.stop_op is not None
            await asyncio.shield(run.stop_op.outcome)
        self._cursor = run.first_seq

    def abandon(self) -> asyncio.Future[StopOutcome] | None:
        """Give the turn up without waiting: claim its stop unless it has settled already.

        Safe to call at any time and more than once (also after iteration ended or failed).
        """
        if self._abandoned:
            return None
        self._abandoned = True
        self._state = "done"
        self._buffer.clear()
        run = self._run
        if run is None or run.settled.is_set() or run.ending:
            return None
        started = run.start_outcome
        if started.done() and (started.cancelled() or started.exception() is not None):
            return None
        return self._kernel._stops.claim(run, ABANDON_SOURCE, "immediate", escalate=False)

    async def aclose(self) -> None:
        """Abandon the turn and wait for its cleanup; raise the cleanup's failure."""
        stopping = self.abandon()
        if stopping is not None:
            await stopping
