"""Group commit for the shell-run store: the record writes of concurrent runs share one
transaction, so one commit (one ``fdatasync`` under ``synchronous=FULL``) covers them all.

A write is queued and its caller waits. While no batch is being written, the first queued write
starts one at once (a lone write waits for nothing); writes queued while a batch is being
written form the next batch, written as soon as the current one has committed. So the batch
size follows the load, bounded by what is in flight (each live run has at most one record write
outstanding), and no write waits for a timer.

Each write of a batch runs inside its own ``SAVEPOINT``: a write that fails (a revision that is
not the stored one, a duplicate ref) is rolled back alone and only its caller gets the error;
the others commit. If SQLite rolled back the whole transaction itself (a full disk, an I/O
error), or the ``COMMIT`` fails, every caller of the batch gets the error and nothing of it is
stored. A caller is released only after the ``COMMIT`` that holds its write, so an acknowledged
record is as durable as a write of its own would be. Within a batch, writes are applied in the
order they were queued, and ``change_seq`` is assigned in that order, so it still is commit
order. A caller cancelled while its write is queued does not withdraw it: the write is applied
(or fails) with its batch.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from maka_runtime.common.sqlite import SqliteWorker, StoreErrors

__all__ = ["GroupCommit"]

T = TypeVar("T")
#: One write of a batch, run on the worker thread inside its own savepoint.
Write = Callable[[sqlite3.Connection], T]


@dataclass
class _Queued(Generic[T]):
    write: Write[T]
    done: asyncio.Future[T]


@dataclass
class _Outcome(Generic[T]):
    """What one write of a batch came to: its result, or the error it raised."""

    result: T | None = None
    error: BaseException | None = None
    applied: bool = False


@dataclass
class _Batch(Generic[T]):
    writes: list[_Queued[T]]
    outcomes: list[_Outcome[T]] = field(default_factory=list)


class GroupCommit(Generic[T]):
    """Queues writes of one kind and commits them in batches over *worker* (see the module
    docstring). *committed* runs on the worker after each COMMIT with the applied results,
    in order, before any caller is released."""

    def __init__(
        self,
        worker: SqliteWorker,
        errors: StoreErrors,
        *,
        label: str,
        committed: Callable[[list[T]], None],
    ) -> None:
        self._worker = worker
        self._label = label
        self._errors = errors
        self._committed = committed
        self._queue: list[_Queued[T]] = []
        self._writer: asyncio.Task[None] | None = None
        #: Transactions committed (for tests and metrics: fewer than writes under load).
        self.transactions = 0

    async def submit(self, write: Write[T]) -> T:
        """Queue *write*; returns its result once the transaction holding it has committed."""
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        # A caller cancelled while it waits must not leave "exception never retrieved".
        done.add_done_callback(_consume)
        self._queue.append(_Queued(write, done))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_batches(), name="shell-run commits")
        return await asyncio.shield(done)

    async def close(self) -> None:
        """Wait until every queued write has been committed or has failed."""
        if self._writer is not None:
            with contextlib.suppress(BaseException):
                await asyncio.shield(self._writer)

    async def _write_batches(self) -> None:
        while self._queue:
            batch = _Batch(self._queue)
            self._queue = []
            try:
                await self._worker.write(
                    functools.partial(self._apply, batch=batch), committed=self._on_commit
                )
            except BaseException as error:  # every write of the batch failed with it
                for queued in batch.writes:
                    _settle(queued.done, error=error)
                if isinstance(error, asyncio.CancelledError):
                    raise
                continue
            self.transactions += 1
            for queued, outcome in zip(batch.writes, batch.outcomes, strict=True):
                _settle(queued.done, result=outcome.result, error=outcome.error)

    # -- on the worker thread --------------------------------------------------------------

    def _apply(self, db: sqlite3.Connection, *, batch: _Batch[T]) -> _Batch[T]:
        batch.outcomes = []
        for queued in batch.writes:
            db.execute("SAVEPOINT one_write")
            try:
                result = queued.write(db)
            except BaseException as error:
                if not db.in_transaction:
                    raise  # SQLite rolled the whole transaction back: the batch fails
                db.execute("ROLLBACK TO one_write")
                db.execute("RELEASE one_write")
                if not isinstance(error, Exception):
                    raise
                batch.outcomes.append(_Outcome(error=self._mapped(error)))
                continue
            db.execute("RELEASE one_write")
            batch.outcomes.append(_Outcome(result=result, applied=True))
        return batch

    def _on_commit(self, batch: _Batch[T]) -> None:
        applied = [o.result for o in batch.outcomes if o.applied]
        self._committed(applied)  # type: ignore[arg-type]

    def _mapped(self, error: Exception) -> Exception:
        """The error one write's caller gets, mapped as the worker maps a failed call."""
        errors = self._errors
        if isinstance(error, errors.passthrough):
            return error
        if isinstance(error, OverflowError):
            return errors.invalid_request(f"a number is out of range ({error})")
        if isinstance(error, (sqlite3.Error, OSError, *errors.decode_errors)):
            return errors.persistence_failed(f"{self._label} {self._worker.path}: sqlite: {error}")
        return error


def _settle(done: asyncio.Future[T], *, result: T | None = None,
            error: BaseException | None = None) -> None:  # fmt: skip
    if done.done():
        return
    if isinstance(error, asyncio.CancelledError):
        done.cancel()
    elif error is not None:
        done.set_exception(error)
    else:
        done.set_result(result)  # type: ignore[arg-type]


def _consume(done: asyncio.Future[T]) -> None:
    if not done.cancelled():
        done.exception()
