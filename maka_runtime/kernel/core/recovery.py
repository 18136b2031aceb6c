"""The start-up sweep: repairing what a kernel process that died left behind, before serving.

The policy lives here; stores only offer primitives (:meth:`~SessionStore.running_turns`,
:meth:`~SessionStore.sessions_in_status`, :meth:`~InteractionStore.pending_interactions`,
``append_messages``, ``update_header``, ``resolve_interaction``):

* every interaction request of such a turn still ``pending`` is closed (``deny``, reason
  ``host_restarted``) through the store's compare-and-set, so an answer can never win against
  the sweep later;
* every turn the store still has ``running`` gets, in one append, an ``interaction_resolved``
  (outcome ``closed``, reason ``host_restarted``, as a stop records a closed request) for each
  of its requests the sweep closed, then ``turn_state aborted`` (abort source
  ``host_restarted``) and a ``system_note interrupted`` — the terminal state stays the turn's
  last record, after the closures;
* every session that had such a turn is marked ``aborted``; every other session whose header
  was left ``running`` or ``waiting_for_user`` becomes ``active``;
* any other request still ``pending`` (its turn already ended) is closed the same way, with no
  log entry: its turn's terminal state is already written and nothing may follow it.

A sweep changes nothing the second time. Each step is its own store transaction; a sweep cut
short (the process dies during start-up) is completed by the next one: a request it closed
while its turn is still ``running`` has not been recorded yet (the record and the terminal state
are one append), so the next sweep records it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from maka_runtime.kernel.core.errors import InteractionAlreadyResolvedError
from maka_runtime.kernel.core.log.events import (
    InteractionResolved,
    StoredMessage,
    SystemNote,
    TurnState,
)
from maka_runtime.kernel.core.session import SessionStatus
from maka_runtime.kernel.core.store import (
    InteractionRecord,
    InteractionStore,
    Resolution,
    SessionStore,
)

SWEEP_SOURCE = "host_restarted"
#: Headers a live turn leaves behind; with no live turn they are stale.
LIVE_STATUSES: tuple[SessionStatus, ...] = ("running", "waiting_for_user")


@dataclass(frozen=True, kw_only=True, slots=True)
class SweepReport:
    """What the start-up sweep repaired."""

    interrupted_turns: tuple[tuple[str, str], ...] = ()
    sessions_updated: tuple[str, ...] = ()
    interactions_closed: tuple[tuple[str, str], ...] = ()


class RecoverableStore(SessionStore, InteractionStore, Protocol):
    """A store holding both sessions and interaction requests (the kernel's store)."""


def closure_entry(record: InteractionRecord, now: int) -> InteractionResolved:
    """The log's record of a request the sweep closed (what a stop records for a closed one)."""
    return InteractionResolved(
        turn_id=record.turn_id,
        request_id=record.request_id,
        kind=record.kind,
        outcome="closed",
        answers=record.answers,
        reason=record.reason,
        id=f"sweep-{record.request_id}-closed",
        ts=now,
    )


def interrupted_entries(
    turn_id: str, now: int, closed: tuple[InteractionRecord, ...] = ()
) -> list[StoredMessage]:
    """What the sweep appends for a turn a dead process left ``running``: the closures of its
    requests, then its terminal state, then the note."""
    return [
        *(closure_entry(record, now) for record in closed),
        TurnState(
            turn_id=turn_id,
            status="aborted",
            abort_source=SWEEP_SOURCE,
            aborted_at=now,
            id=f"sweep-{turn_id}-state",
            ts=now,
        ),
        SystemNote(
            kind="interrupted",
            text=(
                f"turn {turn_id} was interrupted: the kernel process running it ended "
                "before the turn did"
            ),
            turn_id=turn_id,
            source=SWEEP_SOURCE,
            id=f"sweep-{turn_id}-note",
            ts=now,
        ),
    ]


async def recover_interrupted(store: RecoverableStore, now: int) -> SweepReport:
    """Run the start-up sweep over *store* (see the module docstring) and report it."""
    closing = Resolution(status="closed", decision="deny", reason=SWEEP_SOURCE)
    closed: list[tuple[str, str]] = []
    interrupted: list[tuple[str, str]] = []
    for session_id, turn_id in await store.running_turns():
        for record in await store.list_interactions(session_id, pending_only=True):
            if record.turn_id == turn_id and await _close(store, record, closing, now):
                closed.append((session_id, record.request_id))
        recorded = tuple(
            record
            for record in await store.list_interactions(session_id)
            if record.turn_id == turn_id
            and record.status == "closed"
            and record.reason == SWEEP_SOURCE
        )
        await store.append_messages(session_id, interrupted_entries(turn_id, now, recorded))
        interrupted.append((session_id, turn_id))
    touched = {session_id for session_id, _ in interrupted}
    stale = await store.sessions_in_status(LIVE_STATUSES)
    updated = sorted(touched | set(stale))
    for session_id in updated:
        status: SessionStatus = "aborted" if session_id in touched else "active"
        await store.update_header(session_id, {"status": status, "status_updated_at": now})
    for record in await store.pending_interactions():
        if await _close(store, record, closing, now):
            closed.append((record.session_id, record.request_id))
    return SweepReport(
        interrupted_turns=tuple(interrupted),
        sessions_updated=tuple(updated),
        interactions_closed=tuple(closed),
    )


async def _close(
    store: RecoverableStore, record: InteractionRecord, closing: Resolution, now: int
) -> bool:
    try:
        await store.resolve_interaction(record.session_id, record.request_id, closing, now)
    except InteractionAlreadyResolvedError:
        return False  # resolved meanwhile: not the sweep's to close
    return True
