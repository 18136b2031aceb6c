"""Turn ends the store refused, recorded again until it takes them.

A turn can end while the session store refuses writes (a full disk). Its terminal
``turn_state`` is then not lost: it waits here, with a ``system_note`` saying it is recorded
late and why, and one task owned by this object appends it again, with the repair of the
session header's status in the same commit, oldest first, pausing longer after each refusal.
While a session's turn end waits, the session admits no new turn (``PERSISTENCE_FAILED``), so
the next turn's records never come before the previous turn's end.

If the kernel closes first, what still waits is left to the next start: its sweep marks every
turn the store still has as ``running`` aborted, with an ``interrupted`` note. Either way no
turn stays ``running`` on the record.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from maka_runtime.common.aio import TaskOwner
from maka_runtime.kernel.core.errors import (
    NotFoundError,
    PersistenceFailedError,
    StoreClosedError,
    describe,
)
from maka_runtime.kernel.core.log.events import StoredMessage, SystemNote
from maka_runtime.kernel.core.session import HeaderPatch

log = logging.getLogger("maka_runtime.kernel.core")

INITIAL_BACKOFF = 0.05
MAX_BACKOFF = 1.0


@dataclass
class _PendingEnd:
    session_id: str
    turn_id: str
    #: Still to append (empty when only the header is left); the header patch goes with them.
    entries: list[StoredMessage]
    patch: HeaderPatch


class PendingTurnEnds:
    """The turn ends waiting for the store, one per session at most, and their writer."""

    def __init__(
        self,
        *,
        append: Callable[[str, Sequence[StoredMessage], HeaderPatch | None], Awaitable[object]],
        update_header: Callable[[str, HeaderPatch], Awaitable[object]],
        tasks: TaskOwner,
        new_id: Callable[[], str],
        now: Callable[[], int],
    ) -> None:
        self._append = append
        self._update_header = update_header
        self._tasks = tasks
        self._new_id = new_id
        self._now = now
        self._pending: dict[str, _PendingEnd] = {}
        self._task: asyncio.Task[None] | None = None

    def waiting_turn(self, session_id: str) -> str | None:
        """The turn of *session_id* whose end is not recorded yet, if any."""
        pending = self._pending.get(session_id)
        return pending.turn_id if pending is not None else None

    def add(
        self,
        session_id: str,
        turn_id: str,
        *,
        entries: Sequence[StoredMessage],
        patch: HeaderPatch,
        cause: BaseException,
    ) -> None:
        """Record *entries* (the turn's end; empty if they are committed) with the header
        *patch*, in one commit, as soon as the store takes writes."""
        pending = self._pending.get(session_id)
        if pending is not None and pending.turn_id == turn_id:
            pending.entries.extend(entries)
            pending.patch = {**pending.patch, **patch}
            return
        late: list[StoredMessage] = []
        if entries:
            late = [
                *entries,
                SystemNote(
                    kind="error",
                    text=f"the end of turn {turn_id} is recorded late: the session store "
                    f"refused it when the turn ended ({describe(cause)})",
                    turn_id=turn_id,
                    id=self._new_id(),
                    ts=self._now(),
                ),
            ]
        log.warning(
            "the end of turn %s (session %s) was not recorded (%s); retrying until it is",
            turn_id,
            session_id,
            describe(cause),
        )
        self._pending[session_id] = _PendingEnd(session_id, turn_id, late, dict(patch))  # type: ignore[arg-type]
        if self._task is None:
            self._task = self._tasks.spawn(self._retry(), name="pending-turn-ends")

    async def _retry(self) -> None:
        backoff = INITIAL_BACKOFF
        try:
            while self._pending:
                await asyncio.sleep(backoff)
                if await self._attempt():
                    backoff = INITIAL_BACKOFF
                else:
                    backoff = min(backoff * 2, MAX_BACKOFF)
        finally:
            if self._task is asyncio.current_task():
                self._task = None

    async def _attempt(self) -> bool:
        """Record what waits, oldest first; False if the store still refuses."""
        for session_id, pending in list(self._pending.items()):
            try:
                if pending.entries:
                    await self._append(session_id, pending.entries, pending.patch)
                else:
                    await self._update_header(session_id, pending.patch)
            except StoreClosedError:
                return False
            except PersistenceFailedError:
                return False
            except NotFoundError:
                pass  # the session was deleted meanwhile: nothing is left to record
            except asyncio.CancelledError:
                raise
            except Exception as failure:
                log.error(
                    "giving up on the end of turn %s (session %s): %s",
                    pending.turn_id,
                    session_id,
                    describe(failure),
                )
            else:
                log.info("the end of turn %s (session %s) is recorded", pending.turn_id, session_id)
            with contextlib.suppress(KeyError):
                del self._pending[session_id]
        return True
