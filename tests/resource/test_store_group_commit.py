"""Group commit in the shell-run store: concurrent record writes share one transaction, each
caller released only after the COMMIT holding its write, a failed write failing alone."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest

from maka_runtime.common.sqlite import add_commit_observer
from maka_runtime.common.storage_root import RootOwner, resolve_storage_root, try_acquire_root_owner
from maka_runtime.resource.core import (
    InternalFailureError,
    PersistenceFailedError,
    ProcessIdentity,
    ShellRunRecord,
)
from maka_runtime.resource.store import SqliteShellRunStore
from tests.resource.test_store import record


class HeldCommit:
    """Holds the store's worker thread right after its first COMMIT until released, so the
    writes queued meanwhile are known to form the next batch."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.commits = 0
        self.first_done = threading.Event()
        self.release = threading.Event()

    def __call__(self, _store: str, path: Path, _seconds: float) -> None:
        if path != self.path:
            return
        self.commits += 1
        if self.commits == 1:
            self.first_done.set()
            self.release.wait(30)


@pytest.fixture
def owner(tmp_path: Path) -> Iterator[RootOwner]:
    opened = try_acquire_root_owner(resolve_storage_root(tmp_path / "root", "resource"))
    assert opened is not None
    yield opened
    opened.close()


@pytest.fixture
async def store(owner: RootOwner) -> AsyncIterator[SqliteShellRunStore]:
    opened = await SqliteShellRunStore.open(owner.lease)
    yield opened
    await opened.close()


async def _batch_after_a_held_write(
    store: SqliteShellRunStore,
    first: ShellRunRecord,
    *writes: Coroutine[Any, Any, ShellRunRecord],
) -> tuple[HeldCommit, list[ShellRunRecord | BaseException]]:
    """Commit *first* and hold the worker after it; queue *writes* meanwhile; release."""
    held = HeldCommit(store.path)
    remove = add_commit_observer(held)
    try:
        leading = asyncio.ensure_future(store.insert(first))
        await asyncio.to_thread(held.first_done.wait, 30)
        queued = [asyncio.ensure_future(write) for write in writes]
        await asyncio.sleep(0)  # each queues its write (the worker is still held)
        assert not any(task.done() for task in queued)  # nobody released before its commit
        held.release.set()
        await leading
        outcomes = await asyncio.gather(*queued, return_exceptions=True)
    finally:
        held.release.set()
        remove()
    return held, list(outcomes)


def _stored_refs(path: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(path) as db:  # another connection: only what was committed
        return list(db.execute("SELECT ref, change_seq FROM shell_runs ORDER BY change_seq"))


async def test_writes_queued_during_a_commit_share_the_next_transaction(
    store: SqliteShellRunStore,
) -> None:
    later = [record(f"r{index}") for index in range(4)]
    held, outcomes = await _batch_after_a_held_write(
        store, record("first"), *(store.insert(item) for item in later)
    )
    assert held.commits == 2  # the first write's, then one for the four queued meanwhile
    assert store.transactions == 2
    assert [o.change_seq for o in outcomes if isinstance(o, ShellRunRecord)] == [2, 3, 4, 5]
    assert _stored_refs(store.path) == [
        (record("first").ref, 1),
        *((item.ref, seq) for item, seq in zip(later, range(2, 6), strict=True)),
    ]
    assert store.last_change_seq == 5


async def test_a_failed_write_fails_alone_and_the_rest_of_its_batch_commits(
    store: SqliteShellRunStore,
) -> None:
    stale = await store.insert(record("stale"))
    running = await store.update(stale.started(process=ProcessIdentity(1, 2, "boot"), now=1))
    _, outcomes = await _batch_after_a_held_write(
        store,
        record("first"),
        store.insert(record("b")),
        store.update(stale.started(process=ProcessIdentity(1, 2, "boot"), now=1)),  # stale
        store.insert(record("b")),  # the same ref again
        store.insert(record("c")),
    )
    b, refused, duplicate, c = outcomes
    assert isinstance(refused, InternalFailureError)
    assert "not the stored active revision" in str(refused)
    assert isinstance(duplicate, PersistenceFailedError)
    assert "UNIQUE constraint failed" in str(duplicate)
    assert isinstance(b, ShellRunRecord) and isinstance(c, ShellRunRecord)
    # The writes rolled back took no change_seq: the committed ones follow on without a gap.
    assert (b.change_seq, c.change_seq) == (4, 5)
    assert await store.get(stale.ref) == running
    assert [ref for ref, _ in _stored_refs(store.path)] == [
        stale.ref,
        record("first").ref,
        b.ref,
        c.ref,
    ]


async def test_closing_the_store_settles_every_queued_write(store: SqliteShellRunStore) -> None:
    writes = [asyncio.ensure_future(store.insert(record(f"q{index}"))) for index in range(3)]
    await asyncio.sleep(0)
    await store.close()
    stored = await asyncio.gather(*writes)
    assert [item.change_seq for item in stored] == [1, 2, 3]
    assert len(_stored_refs(store.path)) == 3


async def test_a_caller_cancelled_while_queued_does_not_withdraw_its_write(
    store: SqliteShellRunStore,
) -> None:
    held = HeldCommit(store.path)
    remove = add_commit_observer(held)
    try:
        leading = asyncio.ensure_future(store.insert(record("first")))
        await asyncio.to_thread(held.first_done.wait, 30)
        queued = asyncio.ensure_future(store.insert(record("cancelled-caller")))
        await asyncio.sleep(0)  # its write is queued behind the held commit
        queued.cancel()
        held.release.set()
        await leading
        with pytest.raises(asyncio.CancelledError):
            await queued
    finally:
        held.release.set()
        remove()
    await store.close()  # settles the queued write
    assert [ref for ref, _ in _stored_refs(store.path)] == [
        record("first").ref,
        record("cancelled-caller").ref,
    ]


async def test_a_failed_transaction_gives_each_write_its_own_outcome(
    store: SqliteShellRunStore,
) -> None:
    # A write that ends the transaction itself: the batch cannot commit, so each of its writes
    # runs again alone, and only the bad one fails (the others commit, in order).
    def aborting(db: sqlite3.Connection) -> ShellRunRecord:
        db.execute("ROLLBACK")
        return record("never stored")  # its COMMIT fails: nothing is left to commit

    _, outcomes = await _batch_after_a_held_write(
        store,
        record("first"),
        store.insert(record("a")),
        store._commits.write(aborting),
        store.insert(record("b")),
    )
    a, failed, b = outcomes
    assert isinstance(failed, PersistenceFailedError), failed
    assert isinstance(a, ShellRunRecord) and isinstance(b, ShellRunRecord)
    assert (a.change_seq, b.change_seq) == (2, 3)
    assert [ref for ref, _ in _stored_refs(store.path)] == [
        record("first").ref,
        record("a").ref,
        record("b").ref,
    ]
    assert store.last_change_seq == 3


async def test_a_lone_write_is_its_own_transaction_without_a_savepoint(
    store: SqliteShellRunStore,
) -> None:
    statements: list[str] = []

    def traced(db: sqlite3.Connection) -> None:
        db.set_trace_callback(statements.append)

    await store._worker.read(traced)
    try:
        await store.insert(record("alone"))
    finally:
        await store._worker.read(lambda db: db.set_trace_callback(None))
    assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
    assert not [s for s in statements if "SAVEPOINT" in s or "RELEASE" in s]
    assert store.transactions == 1
