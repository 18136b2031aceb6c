"""One SQLite worker for both services' stores: a thread, a connection, transactions, the owner
lease check, the schema version, the WAL check and the error mapping. The stores are SQL over it.

**Blocking calls and the event loop.** SQLite calls block, and a commit can wait for an fsync, a
checkpoint or a lock. None of that may stall the event loop, which also carries every gRPC
stream, PTY and timer. So the worker owns *one* thread (a single-thread executor) that opens the
connection and runs every statement; coroutines hand it work and await the result. One thread
and one connection also apply all calls in the order they were submitted (SQLite admits one
writer at a time anyway) and keep the connection on the thread that created it. The price is
one thread hop per call (tens of microseconds). A caller cancelled while its call runs does not
undo it: the work completes, or rolls back atomically, on the worker.

**Transactions.** :meth:`SqliteWorker.write` runs its work inside ``BEGIN IMMEDIATE`` …
``COMMIT``; whatever fails (the work, or the COMMIT itself: SQLite may or may not have rolled
back already, e.g. on a full disk) is rolled back, since a transaction left open would refuse
every later write. ``committed`` runs on the worker right after the COMMIT, before the next call.
Each committed transaction's time goes to the commit observers (:func:`add_commit_observer`:
the metrics of :mod:`maka_runtime.common.metrics`).

**Checkpoints** of the WAL run on a thread and connection of their own every few hundred
commits (:mod:`.sqlite_checkpoint`), not inside whichever COMMIT crosses SQLite's threshold.

**Opening.** WAL is required (a file system that cannot do it is refused); ``synchronous`` is
the store's choice; ``PRAGMA user_version`` holds the schema version: a file of a newer version
than the store knows is refused, an older one is brought up by the store's (idempotent) schema
script.

**Ownership and errors.** Every call is refused once the store's owner lease has closed or the
worker itself is closed (checked on the caller's side and again on the thread). The worker
imports neither service: each store passes :class:`StoreErrors`, how to build its own errors,
so the cores keep their error classes. The mapping, the same for both stores: the store's own
errors pass through untouched; an ``OverflowError`` (a request's number SQLite cannot hold,
beyond 64 bits) is the caller's fault, ``invalid_request``; ``sqlite3.Error`` and ``OSError``
(a full disk, an I/O error, a lock held too long) and the store's ``decode_errors`` (a stored
record it cannot read) are ``persistence_failed``; a closed owner or worker is ``store_closed``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from maka_runtime.common.config import SettingsParser
from maka_runtime.common.sqlite_checkpoint import Checkpointer
from maka_runtime.common.storage_root import RootLease

__all__ = [
    "SqliteWorker",
    "StoreErrors",
    "StoreSchema",
    "Synchronous",
    "WorkerOptions",
    "add_commit_observer",
    "add_synchronous_setting",
    "durability",
]

log = logging.getLogger(__name__)

T = TypeVar("T")
Synchronous = Literal["NORMAL", "FULL"]
BUSY_TIMEOUT_MS = 5000


def _synchronous(value: str) -> Synchronous:
    if value.lower() == "normal":
        return "NORMAL"
    if value.lower() == "full":
        return "FULL"
    raise argparse.ArgumentTypeError(f"expected normal or full, got {value!r}")


def add_synchronous_setting(settings: SettingsParser, store: str) -> None:
    """Declare ``--sqlite-synchronous`` (both services, default ``normal``): how durable a
    commit of *store* is before it is acknowledged. Its value is ``NORMAL`` or ``FULL``."""
    settings.add(
        "sqlite-synchronous",
        type=_synchronous,
        default="normal",
        metavar="normal|full",
        help=f"SQLite durability of {store}: normal survives a crashed process (every commit "
        "is in the write-ahead log before it is acknowledged), full also a power loss (an "
        "fsync a commit)",
    )


def durability(synchronous: Synchronous) -> str:
    """What an acknowledged commit survives under *synchronous* (a service's startup line)."""
    if synchronous == "FULL":
        return "synchronous=full: a commit survives a crashed process and a power loss"
    return "synchronous=normal: a commit survives a crashed process, not a power loss"


#: Called on the worker thread after each COMMIT: (store name, database path, seconds).
CommitObserver = Callable[[str, Path, float], None]
_commit_observers: list[CommitObserver] = []


def add_commit_observer(observer: CommitObserver) -> Callable[[], None]:
    """Have *observer* see every commit of every store in this process; returns its removal."""
    _commit_observers.append(observer)
    return lambda: _commit_observers.remove(observer)


@dataclass(frozen=True)
class StoreErrors:
    """How a store builds its own errors from a message (each returns the exception to raise)."""

    persistence_failed: Callable[[str], Exception]
    store_closed: Callable[[str], Exception]
    invalid_request: Callable[[str], Exception]
    #: The store's own errors: raised by its work, they pass through untouched.
    passthrough: type[Exception]
    #: Errors of reading a stored record back (``persistence_failed`` too); none by default.
    decode_errors: tuple[type[Exception], ...] = ()


@dataclass(frozen=True)
class StoreSchema:
    """The store's tables: an idempotent script (``CREATE … IF NOT EXISTS``) and its version."""

    script: str
    version: int


@dataclass(frozen=True)
class WorkerOptions:
    #: What the store is called in messages, e.g. "the session store".
    label: str
    thread_name: str
    synchronous: Synchronous = "FULL"
    foreign_keys: bool = False


class SqliteWorker:
    """The thread and connection of one SQLite store (see the module docstring)."""

    def __init__(
        self, lease: RootLease, path: Path, options: WorkerOptions, errors: StoreErrors
    ) -> None:
        self._lease = lease
        self.path = path
        self._options = options
        self._errors = errors
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=options.thread_name)
        self._conn: sqlite3.Connection | None = None
        self._closed = False
        #: The WAL's checkpoints, off this worker's thread (:mod:`.sqlite_checkpoint`).
        self.checkpoints = Checkpointer(path, f"{options.thread_name}-checkpoint")

    @classmethod
    async def open(
        cls,
        lease: RootLease,
        path: Path,
        schema: StoreSchema,
        options: WorkerOptions,
        errors: StoreErrors,
    ) -> SqliteWorker:
        """Connect on the worker thread and bring the schema up; refused errors close it again."""
        worker = cls(lease, path, options, errors)
        try:
            worker._refuse_if_closed()
            await worker._submit(functools.partial(worker._connect, schema))
        except BaseException:
            await worker.close()
            raise
        return worker

    @property
    def closed(self) -> bool:
        return self._closed or self._lease.closed

    async def read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run *work* on the worker thread (no transaction of its own: a single statement, or
        several that need not be atomic)."""
        return await self._submit(lambda: work(self._connection()))

    async def write(
        self,
        work: Callable[[sqlite3.Connection], T],
        *,
        committed: Callable[[T], None] | None = None,
    ) -> T:
        """Run *work* in one write transaction; *committed* sees its result after the COMMIT."""
        return await self._submit(functools.partial(self._transaction, work, committed))

    def start_write(
        self,
        work: Callable[[sqlite3.Connection], T],
        done: Callable[[Future[T]], None],
        *,
        committed: Callable[[T], None] | None = None,
    ) -> None:
        """:meth:`write` without a coroutine: hand *work* to the thread now and call *done*
        with its outcome on the event loop (one hop back, no task woken in between). Raises
        at once if the store is closed; *done* is never called once the loop has closed."""
        self._refuse_if_closed()
        loop = asyncio.get_running_loop()
        running = self._executor.submit(
            self._mapped, functools.partial(self._transaction, work, committed)
        )
        running.add_done_callback(functools.partial(_back_on, loop, done))

    def _transaction(
        self, work: Callable[[sqlite3.Connection], T], committed: Callable[[T], None] | None
    ) -> T:
        conn = self._connection()
        started = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        try:
            result = work(conn)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        # Durable from here on: nothing after the COMMIT may make the transaction look failed
        # (its caller would be told a committed write failed, and a group commit would run
        # each of its writes again), so each step's error is logged, not raised.
        if committed is not None:
            self._after_commit("its bookkeeping", committed, result)
        self._after_commit("a commit observer", self._observe_commit, time.perf_counter() - started)
        self._after_commit("its checkpoint step", self.checkpoints.committed, conn)
        return result

    def _after_commit(self, what: str, step: Callable[[Any], None], argument: Any) -> None:
        try:
            step(argument)
        except Exception:
            log.exception(
                "%s %s: %s failed after a COMMIT (the transaction stands)",
                self._options.label,
                self.path,
                what,
            )

    async def close(self) -> None:
        """Close the connection and the thread (the owner lease stays open). Idempotent."""
        if self._closed:
            return
        self._closed = True
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(None, self.checkpoints.close)
            await loop.run_in_executor(self._executor, self._disconnect)
        finally:
            if self._conn is not None:  # cancelled on the way: still closed, on its thread
                self._executor.submit(self._disconnect)
            self._executor.shutdown(wait=True)

    # -- on the worker thread --------------------------------------------------------------

    def _connect(self, schema: StoreSchema) -> None:
        # Created 0600 before SQLite opens it: the WAL and shared-memory files SQLite makes
        # next to it take the database file's mode.
        os.close(os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600))
        os.chmod(self.path, 0o600)
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=True)
        try:
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise self._errors.persistence_failed(
                    f"{self.path} cannot use WAL (journal_mode={mode})"
                )
            conn.execute(f"PRAGMA synchronous={self._options.synchronous}")
            if self._options.foreign_keys:
                conn.execute("PRAGMA foreign_keys=ON")
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA wal_autocheckpoint=0")  # the checkpointer's job
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > schema.version:
                raise self._errors.persistence_failed(
                    f"{self.path} has schema version {version}; this host knows {schema.version}"
                )
            conn.executescript(schema.script)
            conn.execute(f"PRAGMA user_version={int(schema.version)}")
        except BaseException:
            conn.close()
            raise
        self._conn = conn

    def _observe_commit(self, seconds: float) -> None:
        for observer in tuple(_commit_observers):
            observer(self._options.thread_name, self.path, seconds)

    def _disconnect(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _connection(self) -> sqlite3.Connection:
        self._refuse_if_closed()
        if self._conn is None:
            raise self._errors.store_closed(f"{self._options.label} {self.path} is closed")
        return self._conn

    def _mapped(self, work: Callable[[], T]) -> T:
        errors = self._errors
        try:
            return work()
        except errors.passthrough:
            raise
        except OverflowError as error:
            raise errors.invalid_request(f"a number is out of range ({error})") from error
        except (sqlite3.Error, OSError) as error:
            message = f"{self._options.label} {self.path}: sqlite: {error}"
            raise errors.persistence_failed(message) from error
        except errors.decode_errors as error:
            message = f"{self._options.label} {self.path}: unreadable record: {error!r}"
            raise errors.persistence_failed(message) from error

    # -- on the caller's side --------------------------------------------------------------

    def _refuse_if_closed(self) -> None:
        if self._lease.closed:
            raise self._errors.store_closed(
                f"the owner of {self._lease.root.path} has closed; {self._options.label} "
                "refuses every call"
            )
        if self._closed:
            raise self._errors.store_closed(f"{self._options.label} {self.path} is closed")

    async def _submit(self, work: Callable[[], T]) -> T:
        self._refuse_if_closed()
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, functools.partial(self._mapped, work))


def _back_on(
    loop: asyncio.AbstractEventLoop, done: Callable[[Future[T]], None], outcome: Future[T]
) -> None:
    """On the worker's thread: run ``done(outcome)`` on *loop* (a closed loop has no one left
    to tell)."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(done, outcome)
