"""The WAL's checkpoints run on a thread of their own, not inside a store's COMMIT, and keep the
log bounded; a failing checkpoint loses nothing. Real files on a real storage root."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import sqlite3
import threading
from collections.abc import AsyncIterator
from concurrent.futures import Future
from pathlib import Path

import pytest

from maka_runtime.common import sqlite_checkpoint
from maka_runtime.common.sqlite import SqliteWorker
from maka_runtime.common.storage_root import RootOwner
from tests.foundation.test_sqlite_worker import ERRORS, OPTIONS, SCHEMA

#: A WAL frame: a 4 KiB page and its 24-byte header.
FRAME = 4096 + 24


@pytest.fixture
async def worker(owner: RootOwner) -> AsyncIterator[SqliteWorker]:
    """A worker as the kernel's store runs one: ``synchronous=NORMAL``, no ``fsync`` a commit."""
    options = dataclasses.replace(OPTIONS, synchronous="NORMAL")
    opened = await SqliteWorker.open(
        owner.lease, owner.lease.root.path / "n.sqlite3", SCHEMA, options, ERRORS
    )
    yield opened
    await opened.close()


async def commit_many(worker: SqliteWorker, commits: int) -> None:
    for _ in range(commits):
        await worker.write(lambda conn: conn.execute("INSERT INTO parents VALUES (NULL)"))


def wal_bytes(worker: SqliteWorker) -> int:
    wal = Path(f"{worker.path}-wal")
    return wal.stat().st_size if wal.exists() else 0


async def test_checkpoints_run_on_their_own_thread_and_bound_the_log(worker: SqliteWorker) -> None:
    assert await worker.read(lambda c: c.execute("PRAGMA wal_autocheckpoint").fetchone()[0]) == 0
    # Writes with no pause: the thread's checkpoints never catch up with the log's end, so
    # it grows until the writer checkpoints once itself. Uncheckpointed, every commit's
    # page (4 KiB and a frame header) would stay in it.
    first = 64  # fewer than EVERY: no checkpoint yet, so the log holds all their frames
    await commit_many(worker, first)
    per_commit = wal_bytes(worker) / first  # a row, the table's page and the index's
    commits = sqlite_checkpoint.MAX_LOG_PAGES + 8 * sqlite_checkpoint.EVERY
    await commit_many(worker, commits - first)
    await asyncio.get_running_loop().run_in_executor(None, worker.checkpoints.wait_idle)
    assert worker.checkpoints.done >= 4
    every = sqlite_checkpoint.EVERY
    # Decisions come at most WAIT_AFTER turns apart, each on a log length measured up to
    # that long before: the log ends at most two such spans past MAX_LOG_PAGES, and a turn.
    spans = 2 * sqlite_checkpoint.WAIT_AFTER + 1
    bound = sqlite_checkpoint.MAX_LOG_PAGES * FRAME + spans * every * per_commit
    assert wal_bytes(worker) <= bound < commits * per_commit
    # After a pause the thread's checkpoint copies all of it, and the next write starts the
    # log again from its beginning: it stops growing.
    await commit_many(worker, sqlite_checkpoint.EVERY)
    await asyncio.get_running_loop().run_in_executor(None, worker.checkpoints.wait_idle)
    size = wal_bytes(worker)
    await commit_many(worker, sqlite_checkpoint.EVERY - 1)
    assert wal_bytes(worker) <= size
    count = await worker.read(lambda c: c.execute("SELECT COUNT(*) FROM parents").fetchone()[0])
    assert count == commits + 2 * every - 1


async def test_a_checkpoint_slower_than_the_writer_is_waited_for_and_the_log_stays_bounded(
    worker: SqliteWorker, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The slowest checkpoint thread that still makes progress: each checkpoint starts only
    # once the writer, WAIT_AFTER turns later, waits for it.
    writer_waits = threading.Event()
    waits = []
    wait_for = sqlite_checkpoint.Checkpointer._wait_for
    checkpoint = sqlite_checkpoint.Checkpointer._checkpoint

    def waiting(self: sqlite_checkpoint.Checkpointer, running: Future[None]) -> None:
        waits.append(self._since)
        writer_waits.set()
        wait_for(self, running)

    def slow(self: sqlite_checkpoint.Checkpointer) -> None:
        held = writer_waits.wait(timeout=30)
        writer_waits.clear()
        if held:
            checkpoint(self)

    monkeypatch.setattr(sqlite_checkpoint.Checkpointer, "_wait_for", waiting)
    monkeypatch.setattr(sqlite_checkpoint.Checkpointer, "_checkpoint", slow)
    every, after = sqlite_checkpoint.EVERY, sqlite_checkpoint.WAIT_AFTER
    await commit_many(worker, 64)
    per_commit = wal_bytes(worker) / 64
    commits = 2 * sqlite_checkpoint.MAX_LOG_PAGES
    await commit_many(worker, commits - 64)
    # Never more than WAIT_AFTER turns of commits between two checkpoints.
    assert waits and set(waits) == {after * every}
    assert len(waits) == (commits - every) // (after * every)
    writer_waits.set()  # the checkpoint handed over last need not wait
    # The first checkpoint, handed over after a turn, held the log for WAIT_AFTER more; each
    # later one finds the log as the previous one left it, copied whole while the writer waited.
    assert wal_bytes(worker) <= ((after + 1) * every + 1) * per_commit < commits * per_commit
    count = await worker.read(lambda c: c.execute("SELECT COUNT(*) FROM parents").fetchone()[0])
    assert count == commits


async def test_a_failing_checkpoint_is_logged_and_loses_nothing(
    worker: SqliteWorker, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def refuse(*args: object, **kwargs: object) -> sqlite3.Connection:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(sqlite3, "connect", refuse)  # the checkpoint thread connects later
    with caplog.at_level(logging.WARNING, logger="maka.sqlite"):
        await commit_many(worker, 2 * sqlite_checkpoint.EVERY)
        await asyncio.get_running_loop().run_in_executor(None, worker.checkpoints.wait_idle)
    assert worker.checkpoints.done == 0
    assert any("checkpoint of" in r.getMessage() for r in caplog.records)
    assert await worker.read(lambda c: c.execute("SELECT COUNT(*) FROM parents").fetchone()[0]) == (
        2 * sqlite_checkpoint.EVERY
    )
