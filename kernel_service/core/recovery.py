"""The start-up sweep: repairing what a kernel process that died left behind, before serving.

The policy lives here; stores only offer primitives (:meth:`~SessionStore.running_turns`,
:meth:`~SessionStore.sessions_in_status`, :meth:`~InteractionStore.pending_interactions`,
``append_messages``, ``update_header``, ``resolve_interaction``):

* every turn the store still has ``running`` gets ``turn_state aborted`` (abort source
  ``host_restarted``) and a ``system_note interrupted`` appended, in one append;
* every session that had such a turn is marked ``aborted``; every other session whose header
  was left ``running`` or ``waiting_for_user`` becomes ``active``;
* every interaction request still ``pending`` is closed (``deny``, reason ``host_restarted``)
  through the store's compare-and-set, so an answer can never win against the sweep later.

A sweep changes nothing the second time. Each step is its own store transaction; a sweep cut
short (the process dies during start-up) is completed by the next one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from kernel_service.core.errors import InteractionAlreadyResolvedError
from kernel_service.core.log.events import StoredMessage, SystemNote, TurnState
from kernel_service.core.session import SessionStatus
from kernel_service.core.store import InteractionStore, Resolution, SessionStore

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


def interrupted_entries(turn_id: str, now: int) -> list[StoredMessage]:
    """What the sweep appends for a turn a dead process left ``running``."""
    return [
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
    interrupted: list[tuple[str, str]] = []
    for session_id, turn_id in await store.running_turns():
        await store.append_messages(session_id, interrupted_entries(turn_id, now))
        interrupted.append((session_id, turn_id))
    touched = {session_id for session_id, _ in interrupted}
    stale = await store.sessions_in_status(LIVE_STATUSES)
    updated = sorted(touched | set(stale))
    for session_id in updated:
        status: SessionStatus = "aborted" if session_id in touched else "active"
        await store.update_header(session_id, {"status": status, "status_updated_at": now})
    closing = Resolution(status="closed", decision="deny", reason=SWEEP_SOURCE)
    closed: list[tuple[str, str]] = []
    for record in await store.pending_interactions():
        try:
            await store.resolve_interaction(record.session_id, record.request_id, closing, now)
        except InteractionAlreadyResolvedError:
            continue  # resolved meanwhile: not the sweep's to close
        closed.append((record.session_id, record.request_id))
    return SweepReport(
        interrupted_turns=tuple(interrupted),
        sessions_updated=tuple(updated),
        interactions_closed=tuple(closed),
    )
