"""Group commit for the session store: the writes of concurrent callers in one transaction.

Every write the store makes (an append of one session's log, a header update, an interaction
record) is queued here instead of taking its own trip to the SQLite thread. One flusher takes
whatever is queued when the thread is free and runs it all in one ``BEGIN IMMEDIATE`` …
``COMMIT``, each write inside its own ``SAVEPOINT``: a write that fails is rolled back to its
savepoint and its caller gets its own error, the others commit. Writes queued while a batch
commits go into the next one, so the batch grows with the load and one commit (one WAL frame
set, one ``fdatasync`` under ``synchronous=FULL``) serves every session writing at that moment.

**Durability is unchanged**: a caller's future resolves only after the COMMIT of its batch, so
an acknowledged write is on disk exactly as before. If the transaction itself fails (the
COMMIT, a full disk, an error that aborted the transaction), nothing of the batch was written
and every write of it is run again alone, so each caller gets the outcome it would have had.

**Order**: writes commit in the order they were queued; a caller cancelled before its batch
was taken is skipped (its write never runs), one cancelled later does not undo it.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from maka_runtime.common.sqlite import SqliteWorker, StoreErrors

T = TypeVar("T")
Work = Callable[[sqlite3.Connection], Any]
#: A queued write: its work, its caller's future, and whether it may change a listed session.
Queued = tuple[Work, "asyncio.Future[Any]", bool]

#: The most writes one transaction takes (the rest go into the next one).
GROUP_LIMIT = 256


class GroupCommit:
    def __init__(self, worker: SqliteWorker, errors: StoreErrors, label: str) -> None:
        self._worker = worker
        self._errors = errors
        self._where = f"{label} {worker.path}"
        self._queue: list[Queued] = []
        self._flusher: asyncio.Task[None] | None = None
        #: Moves on the worker right after each COMMIT holding a write that may change a listed
        #: session (every write but appends), before any caller of it is released: the
        #: store's ``listing_version``.
        self.listed_commits = 0

    async def write(self, work: Callable[[sqlite3.Connection], T], *, listed: bool = True) -> T:
        """Run *work* in a write transaction shared with the writes queued beside it;
        ``listed=False``: *work* changes no session header (nothing ``list_sessions`` shows)."""
        loop = asyncio.get_running_loop()
        result: asyncio.Future[T] = loop.create_future()
        self._queue.append((work, result, listed))
        if self._flusher is None:
            self._flusher = loop.create_task(self._flush(), name="kernel-store-group-commit")
        return await result

    async def drain(self) -> None:
        """Wait until every queued write has its outcome (before the store closes)."""
        while self._flusher is not None:
            await asyncio.shield(self._flusher)

    async def _flush(self) -> None:
        batch: list[Queued] = []
        try:
            while self._queue:
                taken = self._queue[:GROUP_LIMIT]
                del self._queue[:GROUP_LIMIT]
                batch = [queued for queued in taken if not queued[1].cancelled()]
                if len(batch) == 1:
                    await self._alone(*batch[0])
                elif batch:
                    await self._together(batch)
        finally:
            self._flusher = None
            # Only when the flusher itself is cancelled (the loop shuts down): nobody waits.
            for _, result, _ in [*batch, *self._queue]:
                if not result.done():
                    result.cancel()
            self._queue.clear()

    async def _alone(self, work: Work, result: asyncio.Future[Any], listed: bool) -> None:
        try:
            value = await self._worker.write(work, committed=self._counted if listed else None)
        except Exception as failure:
            _settle(result, failure=failure)
        else:
            _settle(result, value=value)

    async def _together(self, batch: list[Queued]) -> None:
        works = [work for work, _, _ in batch]
        listed = any(queued[2] for queued in batch)
        try:
            outcomes = await self._worker.write(
                lambda conn: self._run_all(conn, works), committed=self._counted if listed else None
            )
        except Exception:
            # Nothing of the batch was committed: each write again on its own.
            for queued in batch:
                if not queued[1].cancelled():
                    await self._alone(*queued)
            return
        for (_, result, _), (value, failure) in zip(batch, outcomes, strict=True):
            _settle(result, value=value, failure=failure)

    # -- on the worker thread ------------------------------------------------------------------

    def _counted(self, _: object) -> None:
        self.listed_commits += 1

    def _run_all(
        self, conn: sqlite3.Connection, works: list[Work]
    ) -> list[tuple[Any, Exception | None]]:
        outcomes: list[tuple[Any, Exception | None]] = []
        for work in works:
            conn.execute("SAVEPOINT grouped")
            try:
                value = work(conn)
            except Exception as failure:
                # Undo this write only; an error that ended the transaction fails the batch.
                conn.execute("ROLLBACK TO grouped")
                conn.execute("RELEASE grouped")
                outcomes.append((None, self._mapped(failure)))
                continue
            conn.execute("RELEASE grouped")
            outcomes.append((value, None))
        return outcomes

    def _mapped(self, failure: Exception) -> Exception:
        """The store's error for *failure*, as :class:`SqliteWorker` maps a write's own."""
        errors = self._errors
        if isinstance(failure, errors.passthrough):
            return failure
        if isinstance(failure, OverflowError):
            mapped = errors.invalid_request(f"a number is out of range ({failure})")
        elif isinstance(failure, sqlite3.Error | OSError):
            mapped = errors.persistence_failed(f"{self._where}: sqlite: {failure}")
        elif isinstance(failure, errors.decode_errors):
            mapped = errors.persistence_failed(f"{self._where}: unreadable record: {failure!r}")
        else:
            return failure
        mapped.__cause__ = failure
        return mapped


def _settle(
    result: asyncio.Future[Any], *, value: Any = None, failure: Exception | None = None
) -> None:
    if result.done():
        return
    if failure is not None:
        result.set_exception(failure)
    else:
        result.set_result(value)
