"""Stop operations: single-flight per run, shared by every stopper.

The first stop of a run (an explicit ``stop_session``, the cleanup of an abandoned turn stream,
a drain) creates its :class:`StopOperation`; every later one awaits the same ``outcome`` and so
sees the same result or the same error object. A retry after a failure re-reports it without
touching the backend again.

Executing a stop: wait until the run has begun (a stop claimed while the run starts fails with
the start's own failure if it does not begin), then run the generation's backend stop and the
interaction owner's close *concurrently* — the backend stop is started first so a slow durable
close never delays it — and report every failure. Then project the stop, exactly once per run:
one ``system_note abort`` with the source, then one ``turn_state aborted``, header ``aborted``.

The terminal state is the turn's last record. The projection waits until the run has put on the
record everything it will (``run.records_done``: the backend's stream ended — with the cut-short
``tool_result``, a last assistant text, ``complete`` — and its owners were closed); it then
*seals* the run (:mod:`.recording` discards whatever of the turn comes later). It does not wait
for a backend it cannot trust or that takes too long:

* a stop that failed (the backend refused, a tool run not confirmed ended, a close failed)
  projects at once: the failure is on the record (``system_note error``, and
  ``run_unconfirmed`` for each run it could not confirm, see :mod:`.confirm`) before the
  terminal state;
* an ``immediate`` stop that succeeded waits at most the stop-settle timeout for the stream to
  end, then projects anyway;
* an ``after_step`` stop answers once the backend has been told (the turn ends at its next step
  boundary) and projects when the stream ends; escalated to ``immediate`` (a drain's grace
  expired, an explicit immediate stop), it waits at most the stop-settle timeout from then.

An immediate stop answers only after the projection.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from maka_runtime.common.aio import race
from maka_runtime.kernel.core.backend import StopMode, StopReason
from maka_runtime.kernel.core.deps import KernelDeps
from maka_runtime.kernel.core.errors import combine_failures, describe
from maka_runtime.kernel.core.log.events import StoredMessage, SystemNote, TurnState
from maka_runtime.kernel.core.session import HeaderPatch
from maka_runtime.kernel.core.sessions import SessionTable
from maka_runtime.kernel.core.tools import ToolHost
from maka_runtime.kernel.core.turns.admission import remember_early_stop
from maka_runtime.kernel.core.turns.confirm import RunConfirmer, unconfirmed_in
from maka_runtime.kernel.core.turns.quarantine import block
from maka_runtime.kernel.core.turns.recording import take_open_message
from maka_runtime.kernel.core.turns.run import Run, StartOutcome, StopOutcome, UnconfirmedRun
from maka_runtime.kernel.core.turns.turn_ends import PendingTurnEnds
from maka_runtime.kernel.core.validation import KernelLimits

log = logging.getLogger("maka_runtime.kernel.core")


@dataclass(eq=False)
class StopOperation:
    run: Run
    source: str
    mode: StopMode
    reason: StopReason
    outcome: asyncio.Future[StopOutcome]
    escalation: asyncio.Task[StopOutcome] | None = None
    projected: bool = False
    failures: list[Exception] = field(default_factory=list)
    #: The backend stop and the owner's close have returned (the run may release its owners).
    cleaned: asyncio.Event = field(default_factory=asyncio.Event)
    #: The stop's work is over: the turn is projected (or the run never began).
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    #: An ``after_step`` stop was escalated to ``immediate``: its wait becomes bounded.
    hurry: asyncio.Event = field(default_factory=asyncio.Event)
    escalation_failure: Exception | None = None
    #: What the run's own cleanup reported before its records were done (noted with the stop).
    run_failure: Exception | None = None
    #: Why the stop's end of the turn could not be written (it is recorded later, see
    #: ``turn_ends``): the turn's readers are told, as for a turn's own end.
    end_failure: Exception | None = None

    def result_view(self) -> asyncio.Future[StopOutcome]:
        """A future for one caller: cancelling it never cancels the shared outcome."""
        return asyncio.shield(self.outcome)

    def answer(self) -> StopOutcome:
        run = self.run
        return StopOutcome(
            session_id=run.session_id,
            turn_id=run.turn_id,
            source=self.source,
            mode=self.mode,
            reason=self.reason,
        )


def _retrieve(future: asyncio.Future[StopOutcome]) -> None:
    # The failure is reported to every stopper and recorded; nobody awaiting is not an error.
    if not future.cancelled():
        future.exception()


class StopCoordinator:
    def __init__(
        self,
        deps: KernelDeps,
        sessions: SessionTable,
        turn_ends: PendingTurnEnds,
        limits: KernelLimits,
        tool_host: ToolHost | None = None,
    ) -> None:
        self._deps = deps
        self._sessions = sessions
        self._turn_ends = turn_ends
        self._settle_timeout = limits.stop_settle_timeout
        self.confirmer = RunConfirmer(deps, sessions, tool_host, limits.stop_confirm_timeout)

    async def stop_early(
        self, session_id: str, turn_id: str, source: str, mode: StopMode, max_early_stops: int
    ) -> StopOutcome:
        """Stop *turn_id*, which was not the session's active run when the stop was asked:
        the run if it has become active, nothing if the turn is on record, otherwise remember
        the stop for its admission (see :mod:`.admission`)."""
        store = self._deps.store
        await store.read_header(session_id)
        recorded = await store.get_turn(session_id, turn_id)
        runtime = self._sessions.session(session_id)
        run = runtime.active_run
        if run is not None and run.turn_id == turn_id:
            return await self.claim(run, source, mode)
        if recorded is not None:
            return StopOutcome(session_id=session_id, source=source, mode=mode)
        remember_early_stop(runtime, turn_id, source, mode, max_early_stops)
        return StopOutcome(session_id=session_id, turn_id=turn_id, source=source, mode=mode)

    async def stop_idle(self, session_id: str, source: str, mode: StopMode) -> StopOutcome:
        """A stop with nothing running: the session must exist."""
        await self._deps.store.read_header(session_id)
        return StopOutcome(session_id=session_id, source=source, mode=mode)

    def claim(
        self, run: Run, source: str, mode: StopMode, *, escalate: bool = True
    ) -> asyncio.Future[StopOutcome]:
        """Claim a stop against *run* now (synchronously) and return its outcome.

        A run has one stop operation; later claims share it. With *escalate*, an ``immediate``
        claim after an ``after_step`` one additionally stops the backend immediately once the
        first stop has been delivered.
        """
        op = run.stop_op
        if op is None and run.ending:
            # The turn already recorded how it ended; there is nothing left to stop.
            done: asyncio.Future[StopOutcome] = asyncio.get_running_loop().create_future()
            done.set_result(StopOutcome(session_id=run.session_id, source=source, mode=mode))
            return done
        if op is None:
            outcome: asyncio.Future[StopOutcome] = asyncio.get_running_loop().create_future()
            outcome.add_done_callback(_retrieve)
            op = StopOperation(run, source, mode, "user_stop", outcome)
            run.stop_op = op
            self._deps.tasks.spawn(self._execute(op), name=f"stop-{run.turn_id}", log_failure=True)
            return op.result_view()
        if escalate and mode == "immediate" and op.mode == "after_step":
            if op.escalation is None:
                op.escalation = self._deps.tasks.spawn(self._escalate(op), name="stop-escalate")
            return asyncio.shield(op.escalation)
        return op.result_view()

    async def _execute(self, op: StopOperation) -> None:
        run = op.run
        try:
            try:
                started = await asyncio.shield(run.start_outcome)
            except asyncio.CancelledError:
                raise
            except Exception as start_failure:
                # The run never began: the stop fails with that same cause.
                op.outcome.set_exception(start_failure)
                return
            if started is StartOutcome.STALE:
                # Stopped while still reserving: it will never begin, so nothing to stop.
                op.outcome.set_result(StopOutcome(session_id=run.session_id, source=op.source))
                return
            failure = await self._stop_begun_run(op)
        except asyncio.CancelledError:
            if not op.outcome.done():
                op.outcome.cancel()
            raise
        finally:
            op.cleaned.set()
            op.finished.set()
        if op.outcome.done():
            return  # an after_step stop answered when it was delivered
        if failure is not None:
            op.outcome.set_exception(failure)
        else:
            op.outcome.set_result(op.answer())

    async def _stop_begun_run(self, op: StopOperation) -> Exception | None:
        run = op.run
        failure = await self._clean_up(op)
        if failure is None:
            failure = await self._await_records(op)
        failures: list[Exception | None] = [failure]
        failures.extend(await self._project(op, failure))
        if self._sessions.session(run.session_id).permanent_failure is not None:
            failures.append(await block(self._deps.store, self._deps.now, run.session_id))
        return combine_failures(failures)

    async def _clean_up(self, op: StopOperation) -> Exception | None:
        """The backend stop and the owner's close, concurrently; their failures combined."""
        run = op.run
        generation = run.generation
        assert generation is not None
        tasks = self._deps.tasks
        # Order matters: the backend stop task is created (and so first scheduled) before the
        # close task, so the backend is told to stop before a slow durable close settles.
        cleanup = [tasks.spawn(generation.stop(op.reason, op.mode), name="stop-backend")]
        if run.interaction is not None:
            cleanup.append(tasks.spawn(run.interaction.close("turn_stopped"), name="stop-close"))
        await asyncio.wait(cleanup)
        self._sessions.session(run.session_id).note_generation(generation)
        failures: list[Exception | None] = []
        for task in cleanup:
            failure = task.exception()
            if failure is not None and not isinstance(failure, Exception):
                raise failure
            failures.append(failure)
        op.cleaned.set()
        return combine_failures(failures)

    async def _await_records(self, op: StopOperation) -> Exception | None:
        """Wait until the run's records are done (bounded for an immediate stop); the failure
        of an escalation meanwhile, if any."""
        run = op.run
        if op.mode == "after_step":
            # Delivered: the turn ends at its next step boundary.
            op.outcome.set_result(op.answer())
            await race(run.records_done.wait(), op.hurry.wait())
            if op.escalation_failure is not None:
                return op.escalation_failure
        if await race(run.records_done.wait(), within=self._settle_timeout) is None:
            log.warning(
                "turn %s of session %s: the backend did not end its stream within %g s of "
                "the stop; the turn is recorded aborted and its later events are discarded",
                run.turn_id,
                run.session_id,
                self._settle_timeout,
            )
        return None

    def _entries(self, op: StopOperation, failure: Exception | None) -> list[StoredMessage]:
        """What the projection appends: the run's open text, the failures, then the ending."""
        run = op.run
        deps = self._deps
        now = deps.now()
        entries: list[StoredMessage] = [*take_open_message(run, deps)]
        entries.extend(self.confirmer.notes(run.turn_id, failure))
        for what, cause in (("stop failed", failure), ("turn cleanup failed", op.run_failure)):
            if cause is not None:
                entries.append(
                    SystemNote(
                        kind="error",
                        text=f"{what}: {cause}",
                        turn_id=run.turn_id,
                        id=deps.new_id(),
                        ts=now,
                    )
                )
        entries.append(
            SystemNote(
                kind="abort",
                text=f"turn {run.turn_id} stopped ({op.mode}) by {op.source}",
                turn_id=run.turn_id,
                source=op.source,
                id=deps.new_id(),
                ts=now,
            )
        )
        entries.append(
            TurnState(
                turn_id=run.turn_id,
                status="aborted",
                abort_source=op.source,
                aborted_at=now,
                id=deps.new_id(),
                ts=now,
            )
        )
        return entries

    async def _project(self, op: StopOperation, failure: Exception | None) -> list[Exception]:
        run = op.run
        deps = self._deps
        if failure is not None:
            log.error(
                "stop failed (session %s, turn %s): %s",
                run.session_id,
                run.turn_id,
                describe(failure),
            )
        unconfirmed = [
            UnconfirmedRun(session_id=run.session_id, turn_id=run.turn_id, ref=ref)
            for error in unconfirmed_in(failure)
            for ref in error.refs
        ]
        # Quarantined before anyone hears of the failure: no turn starts past an unknown run.
        self.confirmer.quarantine(unconfirmed)
        entries = self._entries(op, failure)
        now = deps.now()
        patch: HeaderPatch = {
            "status": "blocked" if unconfirmed else "aborted",
            "status_updated_at": now,
        }
        failures: list[Exception] = []
        # Sealed before the append: nothing of the turn can be appended after its end.
        run.sealed = True
        try:
            # The end and the header's new status are one commit.
            await self._sessions.append(run.session_id, entries, patch)
        except asyncio.CancelledError:
            raise
        except Exception as write_failure:
            failures.append(write_failure)
        if failures:
            # Never left running: recorded as soon as the store takes writes again.
            self._turn_ends.add(
                run.session_id, run.turn_id, entries=entries, patch=patch, cause=failures[0]
            )
            op.end_failure = combine_failures(list(failures))
        op.projected = True
        return failures

    async def _escalate(self, op: StopOperation) -> StopOutcome:
        """Turn a delivered ``after_step`` stop into an ``immediate`` one (drain grace expired)."""
        outcome = await asyncio.shield(op.outcome)
        run = op.run
        if run.settled.is_set() or run.generation is None or op.projected:
            return outcome
        generation = run.generation
        try:
            await generation.stop(op.reason, "immediate")
        except Exception as failure:
            op.escalation_failure = failure
            raise
        finally:
            self._sessions.session(run.session_id).note_generation(generation)
            op.hurry.set()
        await op.finished.wait()
        return StopOutcome(
            session_id=outcome.session_id,
            turn_id=outcome.turn_id,
            source=outcome.source,
            mode="immediate",
            reason=outcome.reason,
        )
