"""Turn admission: whether a turn may start on a session now, and opening a turn by its id.

Opening a turn id either attaches to the session's active run of that id, or to the record of
that turn (a retried start is idempotent: same id and same text), or admits a new run. A new
run is refused, in this order, when the kernel drains (decided in memory, before the store is
touched: a draining host may be closing it), when the session is archived, permanently
quarantined (a backend that could not be disposed), still waits for the end of its previous
turn to reach the store, or holds a stopped turn that has not settled yet. The runner asks
:meth:`TurnAdmission.refusal` again once the run has reserved its backend, before it claims the
session.

Early stops: a stop naming a turn id that is not admitted yet (its start is still on the way)
is remembered on the session (:func:`remember_early_stop`, at most ``max_early_stops`` per
session, the oldest forgotten first). When the runner claims the session for a run it takes
the run's early stop (:func:`take_early_stop`) and claims that stop against the run before
anything is sent, so the turn is recorded (user message, ``running``) and ends aborted exactly
as a turn stopped right after admission. Admitting any turn forgets every other remembered
stop: a stop for a turn id that never comes cannot outlive the next turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from maka_runtime.kernel.core.backend import StopMode
from maka_runtime.kernel.core.deps import KernelDeps
from maka_runtime.kernel.core.errors import (
    HostDrainingError,
    KernelError,
    OperationConflictError,
    PersistenceFailedError,
    SessionArchivedError,
)
from maka_runtime.kernel.core.log.session_log import SessionLog
from maka_runtime.kernel.core.sessions import SessionRuntime, SessionTable
from maka_runtime.kernel.core.turns.quarantine import (
    permanently_quarantined,
    stop_quarantined,
    unconfirmed_quarantined,
)
from maka_runtime.kernel.core.turns.run import Run
from maka_runtime.kernel.core.turns.turn_ends import PendingTurnEnds


@dataclass(frozen=True, kw_only=True, slots=True)
class Opening:
    """An opened turn: the run to follow, or (``run`` is ``None``) a turn already recorded,
    read from ``first_seq``."""

    log: SessionLog
    run: Run | None
    attached: bool
    first_seq: int = 0


class TurnAdmission:
    def __init__(
        self,
        deps: KernelDeps,
        sessions: SessionTable,
        turn_ends: PendingTurnEnds,
        draining: Callable[[], bool],
    ) -> None:
        self._deps = deps
        self._sessions = sessions
        self._turn_ends = turn_ends
        self._draining = draining

    def refusal(self, runtime: SessionRuntime) -> KernelError | None:
        """Why a new turn may not start on this session now, if it may not."""
        if self._draining():
            return HostDrainingError()
        permanent = permanently_quarantined(runtime)
        if permanent is not None:
            return permanent
        waiting = self._turn_ends.waiting_turn(runtime.session_id)
        if waiting is not None:
            return PersistenceFailedError(
                f"the end of turn {waiting!r} of session {runtime.session_id!r} is not recorded "
                "yet: the session store refuses writes; retry once it takes them again"
            )
        return unconfirmed_quarantined(runtime) or stop_quarantined(runtime)

    async def open(
        self,
        session_id: str,
        turn_id: str,
        text: str,
        *,
        launch: Callable[[Run], None],
        made: bool = False,
    ) -> Opening:
        """Attach to the turn *turn_id* or admit it as a new run (started with *launch*).
        *made*: the kernel made *turn_id* for this start, so no record of it is looked up."""
        runtime = self._sessions.session(session_id)
        attached = _attach_active(runtime, turn_id, text)
        if attached is not None:
            return attached
        if self._draining():
            raise HostDrainingError()
        store = self._deps.store
        header = await store.read_header(session_id)
        attached = _attach_active(runtime, turn_id, text)
        if attached is not None:
            return attached
        existing = None if made else await store.get_turn(session_id, turn_id)
        if existing is not None:
            _check_same_text(turn_id, text, existing.text)
            return Opening(log=runtime.log, run=None, attached=True, first_seq=existing.first_seq)
        if header.is_archived:
            raise SessionArchivedError(session_id)
        refusal = self.refusal(runtime)
        if refusal is not None:
            raise refusal
        run = Run(
            run_id=self._deps.new_id(),
            session_id=session_id,
            turn_id=turn_id,
            text=text,
            epoch=runtime.stop_epoch,
            start_outcome=asyncio.get_running_loop().create_future(),
            header=header,
        )
        launch(run)
        return Opening(log=runtime.log, run=run, attached=False)


def remember_early_stop(
    runtime: SessionRuntime, turn_id: str, source: str, mode: StopMode, limit: int
) -> None:
    """Remember a stop for *turn_id*, not admitted yet (bounded by *limit*, oldest first out)."""
    stops = runtime.early_stops
    stops.pop(turn_id, None)
    stops[turn_id] = (source, mode)
    while len(stops) > max(limit, 1):
        del stops[next(iter(stops))]


def take_early_stop(runtime: SessionRuntime, turn_id: str) -> tuple[str, StopMode] | None:
    """The remembered stop of *turn_id*, being admitted now; every other one is forgotten."""
    stop = runtime.early_stops.get(turn_id)
    runtime.early_stops.clear()
    return stop


def _attach_active(runtime: SessionRuntime, turn_id: str, text: str) -> Opening | None:
    active = runtime.active_run
    if active is None or active.turn_id != turn_id:
        return None
    _check_same_text(turn_id, text, active.text)
    return Opening(log=runtime.log, run=active, attached=True)


def _check_same_text(turn_id: str, text: str, recorded: str) -> None:
    if recorded != text:
        raise OperationConflictError(
            f"turn {turn_id!r} already exists with a different text; "
            "use a new turn id for a new turn"
        )
