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

**No task in between**: the first write queued while nothing is flushing schedules the take of
a batch for the loop's next turn (so the writes queued in the same turn share it), the batch
goes to the worker's thread as it is taken, and its outcome comes back as one callback on the
loop that settles every caller and takes the next batch. A write waits for two hops and its
own commit, not for a flusher task to be created, woken and woken again.
"""

from __future__ import annotations

import asyncio
import functools
import sqlite3
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from maka_runtime.common.aio import settle
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
        self._queue: deque[Queued] = deque()
        #: The writes of a transaction that failed as a whole, each to run again alone first.
        self._again: deque[Queued] = deque()
        #: A batch is on the worker, or the next one is scheduled to be taken.
        self._busy = False
        self._idle: asyncio.Future[None] | None = None
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
        if not self._busy:
            # Taken at the loop's next turn, with whatever else this turn queues.
            self._busy = True
            loop.call_soon(self._next)
        return await result

    async def drain(self) -> None:
        """Wait until every queued write has its outcome (before the store closes)."""
        while self._busy:
            if self._idle is None:
                self._idle = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._idle)

    def _next(self) -> None:
        """Hand the next batch to the worker; with nothing left, the flush is over. Each batch
        comes back through :meth:`_done`, on the loop, which takes the next."""
        while True:
            batch, alone = self._take()
            if not batch:
                self._busy = False
                if self._idle is not None:
                    self._idle.set_result(None)
                    self._idle = None
                return
            if alone:
                work, listed = batch[0][0], batch[0][2]
            else:
                works = [queued[0] for queued in batch]
                listed = any(queued[2] for queued in batch)
                work = functools.partial(self._run_all, works=works)
            try:
                self._worker.start_write(
                    work,
                    functools.partial(self._done, batch, alone),
                    committed=self._counted if listed else None,
                )
                return
            except Exception as failure:  # refused before it ran (a closed store)
                for queued in batch:
                    settle(queued[1], failure=failure)

    def _take(self) -> tuple[list[Queued], bool]:
        """The next batch (empty: none) and whether it runs alone, without savepoints; a
        caller cancelled before its batch was taken is skipped."""
        while self._again:
            queued = self._again.popleft()
            if not queued[1].cancelled():
                return [queued], True
        batch: list[Queued] = []
        while self._queue and len(batch) < GROUP_LIMIT:
            queued = self._queue.popleft()
            if not queued[1].cancelled():
                batch.append(queued)
        return batch, len(batch) == 1

    def _done(self, batch: list[Queued], alone: bool, outcome: Future[Any]) -> None:
        if outcome.cancelled():  # the worker shut down before it ran: nobody will run it
            for queued in batch:
                queued[1].cancel()
            self._next()
            return
        failure = outcome.exception()
        if alone:
            settle(batch[0][1], value=None if failure else outcome.result(), failure=failure)
        elif failure is not None:
            # Nothing of the batch was committed: each write again on its own, before the rest.
            self._again.extend(batch)
        else:
            for (_, result, _), (value, error) in zip(batch, outcome.result(), strict=True):
                settle(result, value=value, failure=error)
        self._next()

    # -- on the worker thread ------------------------------------------------------------------

    def _counted(self, _: object) -> None:
        self.listed_commits += 1

    def _run_all(
        self, conn: sqlite3.Connection, *, works: list[Work]
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
