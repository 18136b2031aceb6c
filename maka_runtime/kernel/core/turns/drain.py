"""Drain of the kernel: the rungs from serving to closed, and what each one does.

The rungs, in order (a rung is never left for an earlier one)::

    SERVING ─▶ ADMISSION_CLOSED ─▶ STOPPING_AFTER_STEP ─▶ STOPPING_IMMEDIATELY
            ─▶ READERS_ENDED ─▶ CLOSED

* ``ADMISSION_CLOSED`` (``begin_drain``, the Shutdown RPC's first act): no new session, turn or
  queued message (``HOST_DRAINING``); what runs goes on.
* ``STOPPING_AFTER_STEP``: every running turn is stopped ``after_step`` (one shared stop per
  run, see :mod:`.stop`) and gets the grace period to settle.
* ``STOPPING_IMMEDIATELY``: the turns still running are stopped ``immediate`` and get the
  escalation grace; a turn that settles in neither is reported ``unsettled``.
* ``READERS_ENDED``: the record is complete; every watch and turn stream ends (watchers resume
  elsewhere from their last ``seq``; a turn stream of a still-live run ends ``HOST_DRAINING``).
* ``CLOSED``: the kernel's tasks are cancelled and cached backends disposed. Turns still running
  then stay ``running`` on the record, like after a crash: the next start-up sweep
  (:mod:`maka_runtime.kernel.core.recovery`) marks them interrupted.
"""

from __future__ import annotations

import asyncio
import enum
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from maka_runtime.common.aio import race
from maka_runtime.kernel.core.deps import KernelDeps
from maka_runtime.kernel.core.errors import combine_failures
from maka_runtime.kernel.core.sessions import SessionTable
from maka_runtime.kernel.core.turns.run import Run, StopOutcome
from maka_runtime.kernel.core.turns.stop import StopCoordinator


class DrainRung(enum.IntEnum):
    SERVING = 0
    ADMISSION_CLOSED = 1
    STOPPING_AFTER_STEP = 2
    STOPPING_IMMEDIATELY = 3
    READERS_ENDED = 4
    CLOSED = 5


class DrainOutcome(enum.StrEnum):
    """How one running turn left the drain."""

    STOPPED_AFTER_STEP = "stopped_after_step"
    STOPPED_IMMEDIATELY = "stopped_immediately"
    UNSETTLED = "unsettled"


@dataclass(frozen=True, kw_only=True, slots=True)
class DrainedTurn:
    session_id: str
    turn_id: str
    outcome: DrainOutcome
    failure: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class DrainReport:
    turns: tuple[DrainedTurn, ...] = ()


class KernelDrain:
    """The kernel's drain: which rung it is on, and the work of each rung."""

    def __init__(self, deps: KernelDeps, sessions: SessionTable, stops: StopCoordinator) -> None:
        self._deps = deps
        self._sessions = sessions
        self._stops = stops
        self._rung = DrainRung.SERVING

    @property
    def rung(self) -> DrainRung:
        return self._rung

    @property
    def draining(self) -> bool:
        """Whether new sessions, turns and messages are refused (``HOST_DRAINING``)."""
        return self._rung is not DrainRung.SERVING

    def _reach(self, rung: DrainRung) -> None:
        self._rung = max(self._rung, rung)

    def close_admission(self) -> None:
        self._reach(DrainRung.ADMISSION_CLOSED)

    async def stop_turns(
        self, *, grace: float, escalation_grace: float, source: str
    ) -> DrainReport:
        """Stop running turns ``after_step``, then ``immediate`` after *grace*."""
        self._reach(DrainRung.STOPPING_AFTER_STEP)
        runs = self._sessions.active_runs()
        first = {run: self._stops.claim(run, source, "after_step") for run in runs}
        await _wait_settled(runs, grace)
        late = [run for run in runs if not run.settled.is_set()]
        if late:
            self._reach(DrainRung.STOPPING_IMMEDIATELY)
        second = {run: self._stops.claim(run, source, "immediate") for run in late}
        await _wait_settled(late, escalation_grace)
        return DrainReport(turns=tuple(_drained(run, first[run], second.get(run)) for run in runs))

    async def shut_down(self, *, grace: float, escalation_grace: float, source: str) -> DrainReport:
        """The host's shutdown: stop the running turns, then end every reader."""
        report = await self.stop_turns(
            grace=grace, escalation_grace=escalation_grace, source=source
        )
        # Everything is on the record: watchers end now rather than hold the exit for the
        # server's stop grace, and resume on the next host from their last seq.
        self.end_readers()
        return report

    def end_readers(self) -> None:
        self._reach(DrainRung.READERS_ENDED)
        for runtime in self._sessions.runtimes():
            runtime.log.close()

    async def close(self, *, dispose_timeout: float) -> None:
        """End readers, cancel what still runs, dispose cached backends (once)."""
        if self._rung is DrainRung.CLOSED:
            return
        self.end_readers()
        self._reach(DrainRung.CLOSED)
        tasks = self._deps.tasks
        await tasks.close()
        generations = [
            rt.generation
            for rt in self._sessions.runtimes()
            if rt.generation is not None and rt.generation.active
        ]
        if generations:
            disposals = [
                tasks.spawn(generation.dispose(), name="close-dispose")
                for generation in generations
            ]
            await asyncio.wait(disposals, timeout=dispose_timeout)
        await tasks.close()


def _drained(
    run: Run, first: asyncio.Future[StopOutcome], second: asyncio.Future[StopOutcome] | None
) -> DrainedTurn:
    if not run.settled.is_set():
        outcome = DrainOutcome.UNSETTLED
    elif second is not None:
        outcome = DrainOutcome.STOPPED_IMMEDIATELY
    else:
        outcome = DrainOutcome.STOPPED_AFTER_STEP
    failures = [
        _failure_of(stop) for stop in itertools.chain((first,), (second,)) if stop is not None
    ]
    failure = combine_failures(failures)
    return DrainedTurn(
        session_id=run.session_id,
        turn_id=run.turn_id,
        outcome=outcome,
        failure=str(failure) if failure is not None else "",
    )


async def _wait_settled(runs: Sequence[Run], seconds: float) -> None:
    if not runs:
        return
    await race(asyncio.gather(*(run.settled.wait() for run in runs)), within=seconds)


def _failure_of(stop: asyncio.Future[StopOutcome]) -> Exception | None:
    if not stop.done():
        stop.cancel()
        return None
    if stop.cancelled():
        return None
    failure = stop.exception()
    return failure if isinstance(failure, Exception) else None
