"""Group commit for both services' stores: the writes of concurrent callers in one transaction.

Every write a store makes (the kernel's appends, header updates and interaction records, the
resource service's run records) is queued here instead of taking its own trip to the SQLite
thread. One flusher takes whatever is queued when the thread is free and runs it all in one
``BEGIN IMMEDIATE`` … ``COMMIT``, each write inside its own ``SAVEPOINT``: a write that fails
is rolled back to its savepoint and its caller gets its own error, the others commit. A batch
of one write runs without a savepoint (its transaction is its own). Writes queued while a
batch commits go into the next one, so the batch grows with the load and one commit (one WAL
frame set, one ``fdatasync`` under ``synchronous=FULL``) serves every caller writing at that
moment.

**Durability is unchanged**: a caller's future resolves only after the COMMIT of its batch, so
an acknowledged write is on disk exactly as one written alone. If the transaction itself fails
(the COMMIT, a full disk, an error that aborted the transaction), nothing of the batch was
written and every write of it is run again alone, so each caller gets the outcome it would
have had.

**Order**: writes commit in the order they were queued. A caller cancelled while its write is
queued withdraws it (``withdraw_cancelled``, the kernel's: the write never runs) or not (the
resource service's: a run's record is written whether or not anyone still waits for it); one
cancelled once its batch was taken never undoes it.

**After each COMMIT**, on the worker thread and before any caller of the batch is released,
``on_commit`` gets the results of the batch's writes that were applied and ``observed`` (the
store's bookkeeping: the resource service's ``change_seq`` per session, the kernel's count of
commits that may change a listed session), and :attr:`transactions` moves.

**No task in between**: the first write queued while nothing is flushing schedules the take of
a batch for the loop's next turn (so the writes queued in the same turn share it), the batch
goes to the worker's thread as it is taken, and its outcome comes back as one callback on the
loop that settles every caller and takes the next batch. A write waits for two hops and its
own commit, not for a flusher task to be created, woken and woken again.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import sqlite3
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from maka_runtime.common.aio import settle
from maka_runtime.common.sqlite import SqliteWorker, StoreErrors

__all__ = ["GROUP_LIMIT", "GroupCommit", "Settled"]

log = logging.getLogger(__name__)

T = TypeVar("T")
Work = Callable[[sqlite3.Connection], Any]
#: What a write's store does once its outcome is known, on the loop, whatever became of its
#: caller: its value and its error (``None`` for each it has not).
Settled = Callable[[Any, "BaseException | None"], None]
#: A queued write: its work, its caller's future, whether ``on_commit`` sees its result, and
#: its :data:`Settled` step.
Queued = tuple[Work, "asyncio.Future[Any]", bool, "Settled | None"]

#: The most writes one transaction takes (the rest go into the next one).
GROUP_LIMIT = 256


class GroupCommit:
    def __init__(
        self,
        worker: SqliteWorker,
        errors: StoreErrors,
        label: str,
        *,
        withdraw_cancelled: bool = True,
        on_commit: Callable[[list[Any]], None] | None = None,
    ) -> None:
        self._worker = worker
        self._errors = errors
        self._where = f"{label} {worker.path}"
        self._withdraw = withdraw_cancelled
        self._on_commit = on_commit
        self._queue: deque[Queued] = deque()
        #: The writes of a transaction that failed as a whole, each to run again alone first.
        self._again: deque[Queued] = deque()
        #: A batch is on the worker, or the next one is scheduled to be taken.
        self._busy = False
        self._idle: asyncio.Future[None] | None = None
        #: Write transactions committed so far (fewer than the writes under load).
        self.transactions = 0

    async def write(
        self,
        work: Callable[[sqlite3.Connection], T],
        *,
        observed: bool = True,
        settled: Settled | None = None,
    ) -> T:
        """Run *work* in a write transaction shared with the writes queued beside it;
        ``observed=False``: ``on_commit`` does not see its result. *settled* runs on the loop
        once the write's outcome is known, before its caller is released and even if the
        caller was cancelled meanwhile (a write taken into a batch still commits): what a store
        keeps beside its file (the kernel's header cache) follows what was committed, not what
        its caller lived to see. A write withdrawn before it ran has no outcome."""
        loop = asyncio.get_running_loop()
        result: asyncio.Future[T] = loop.create_future()
        if not self._withdraw:
            # Its write goes on without it: nobody is left to retrieve an error.
            result.add_done_callback(_consume)
        self._queue.append((work, result, observed, settled))
        if not self._busy:
            # Taken at the loop's next turn, with whatever else this turn queues.
            self._busy = True
            loop.call_soon(self._next)
        return await (result if self._withdraw else asyncio.shield(result))

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
            work = batch[0][0] if alone else functools.partial(self._run_all, batch=batch)
            try:
                self._worker.start_write(
                    work,
                    functools.partial(self._done, batch, alone),
                    committed=functools.partial(self._committed, batch, alone),
                )
                return
            except Exception as failure:  # refused before it ran (a closed store)
                for queued in batch:
                    _settle(queued, None, failure)

    def _take(self) -> tuple[list[Queued], bool]:
        """The next batch (empty: none) and whether it runs alone, without savepoints; a
        caller cancelled before its batch was taken is skipped if it withdraws its write. A
        write run again after its batch's transaction failed was taken already: it runs
        whatever became of its caller, as it would have committed with the batch."""
        if self._again:
            return [self._again.popleft()], True
        batch: list[Queued] = []
        while self._queue and len(batch) < GROUP_LIMIT:
            queued = self._queue.popleft()
            if not (self._withdraw and queued[1].cancelled()):
                batch.append(queued)
        return batch, len(batch) == 1

    def _done(self, batch: list[Queued], alone: bool, outcome: Future[Any]) -> None:
        if outcome.cancelled():  # the worker shut down before it ran: nobody will run it
            closed = self._errors.store_closed(f"{self._where} is closed")
            for queued in batch:
                _settle(queued, None, closed)
            self._next()
            return
        failure = outcome.exception()
        if alone:
            _settle(batch[0], None if failure else outcome.result(), failure)
        elif failure is not None:
            # Nothing of the batch was committed: each write again on its own, before the rest.
            self._again.extend(batch)
        else:
            for queued, (value, error) in zip(batch, outcome.result(), strict=True):
                _settle(queued, value, error)
        self._next()

    # -- on the worker thread ------------------------------------------------------------------

    def _committed(self, batch: list[Queued], alone: bool, outcome: Any) -> None:
        """Right after the COMMIT of *batch*, before any of its callers is released."""
        self.transactions += 1
        if self._on_commit is None:
            return
        if alone:
            values = [outcome] if batch[0][2] else []
        else:
            values = [
                value
                for (_, _, observed, _), (value, error) in zip(batch, outcome, strict=True)
                if observed and error is None
            ]
        self._on_commit(values)

    def _run_all(
        self, conn: sqlite3.Connection, *, batch: list[Queued]
    ) -> list[tuple[Any, Exception | None]]:
        outcomes: list[tuple[Any, Exception | None]] = []
        for work, *_ in batch:
            conn.execute("SAVEPOINT grouped")
            try:
                value = work(conn)
            except Exception as failure:
                if not conn.in_transaction:
                    raise  # it ended the transaction: the batch fails as a whole
                # Undo this write only.
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


def _settle(queued: Queued, value: Any, failure: BaseException | None) -> None:
    """Run the write's settled step, then give its caller the outcome."""
    _, result, _, settled = queued
    if settled is not None:
        try:
            settled(value, failure)
        except Exception:
            log.exception("a store's step after a write failed")
    settle(result, value=value, failure=failure)


def _consume(done: asyncio.Future[Any]) -> None:
    if not done.cancelled():
        done.exception()
