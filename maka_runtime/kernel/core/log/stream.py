"""The consumer side of a turn: an async iterator of its session events.

``RuntimeKernel.start_turn`` returns a :class:`TurnStream`. Nothing happens until the first
``__anext__``: it *opens* the turn (admission, see :mod:`maka_runtime.kernel.core.turns.admission`,
decides whether it attaches to a run or record of the same turn id or starts a new run) and
waits until the run either sends, fails to start (the failure is raised), was stopped before
sending (the stop's failure is raised) or went stale (iteration ends without an event;
``not_started_reason`` says why). The stream itself only consumes.

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
from collections.abc import Awaitable, Callable

from maka_runtime.kernel.core.errors import HostDrainingError, TurnNotStartedError
from maka_runtime.kernel.core.log.events import SESSION_EVENT_TYPES, SessionEvent, StoredMessage
from maka_runtime.kernel.core.log.session_log import SessionLog
from maka_runtime.kernel.core.turns.admission import Opening
from maka_runtime.kernel.core.turns.run import Run, StartOutcome, StopOutcome

#: Opens the turn (admission); called once, on the first ``__anext__``.
Opener = Callable[[], Awaitable[Opening]]
#: Claims the stop of an abandoned run: ``(run, source)`` → the stop's outcome.
Stopper = Callable[[Run, str], "asyncio.Future[StopOutcome]"]

ABANDON_SOURCE = "stream_abandoned"


class TurnStream:
    def __init__(
        self,
        session_id: str,
        turn_id: str,
        text: str,
        *,
        open_turn: Opener,
        stop_abandoned: Stopper,
        report_not_started: bool = False,
    ) -> None:
        self._open_turn = open_turn
        self._stop_abandoned = stop_abandoned
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

    def next_ready(self) -> SessionEvent | None:
        """The next event if it is already read and waiting (nothing is awaited), else None.
        A consumer that lags finds the events that piled up meanwhile here."""
        return self._buffer.popleft() if self._buffer else None

    def _wanted(self, entry: StoredMessage) -> bool:
        if entry.turn_id != self.turn_id or entry.type not in SESSION_EVENT_TYPES:
            return False
        return not (entry.type == "turn_state" and entry.status == "running")

    async def _open(self) -> None:
        opening = await self._open_turn()
        self._log = opening.log
        if opening.run is not None:
            await self._follow(opening.run, attached=opening.attached)
            return
        self.attached = True
        self._cursor = opening.first_seq

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
        return self._stop_abandoned(run, ABANDON_SOURCE)

    async def aclose(self) -> None:
        """Abandon the turn and wait for its cleanup; raise the cleanup's failure."""
        stopping = self.abandon()
        if stopping is not None:
            await stopping
