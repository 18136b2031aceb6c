"""Closing a store's SQLite worker (``common/sqlite.py``) and what its group commit tells the
writers a closing worker never ran (``common/group_commit.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path

from maka_runtime.common.storage_root import resolve_storage_root, try_acquire_root_owner
from maka_runtime.resource.core import StoreClosedError
from maka_runtime.resource.store import SqliteShellRunStore
from tests.resource.test_store import record


async def test_a_close_cancelled_on_its_way_still_closes_the_connection(tmp_path: Path) -> None:
    owner = try_acquire_root_owner(resolve_storage_root(tmp_path / "root", "resource"))
    assert owner is not None
    store = await SqliteShellRunStore.open(owner.lease)
    try:
        await store.insert(record("a"))
        worker = store._worker
        closing = asyncio.ensure_future(worker.close())
        await asyncio.sleep(0)  # it is waiting for the checkpoint thread to close
        closing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await closing
        await worker.close()  # idempotent: returns at once
        assert worker._conn is None  # closed all the same, on its own thread
    finally:
        owner.close()


async def test_writes_a_shut_worker_never_ran_are_told_the_store_closed(tmp_path: Path) -> None:
    """Nothing in the services cancels the worker's queued work, but if its executor drops it
    (``cancel_futures``), each writer is told the store is closed, not cancelled: none of them
    asked to be."""
    owner = try_acquire_root_owner(resolve_storage_root(tmp_path / "root", "resource"))
    assert owner is not None
    store = await SqliteShellRunStore.open(owner.lease)
    loop = asyncio.get_running_loop()
    entered, release = threading.Event(), threading.Event()
    try:

        def blocker() -> None:
            entered.set()
            release.wait(10)

        store._worker._executor.submit(blocker)
        writes = [asyncio.ensure_future(store.insert(record(ref))) for ref in "ab"]
        await loop.run_in_executor(None, entered.wait, 10)
        await asyncio.sleep(0)  # the batch of both is queued behind the blocker
        store._worker._executor.shutdown(wait=False, cancel_futures=True)
        release.set()
        outcomes = await asyncio.gather(*writes, return_exceptions=True)
        assert all(isinstance(outcome, StoreClosedError) for outcome in outcomes), outcomes
    finally:
        release.set()
        owner.close()
