"""The one SQLite worker both stores run on, on its own: real files on a real storage root."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from maka_runtime.common.sqlite import SqliteWorker, StoreErrors, StoreSchema, WorkerOptions
from maka_runtime.common.storage_root import RootOwner


class DomainError(Exception):
    pass


class Refused(DomainError):
    pass


class Closed(Refused):
    pass


class Invalid(DomainError):
    pass


ERRORS = StoreErrors(
    persistence_failed=Refused,
    store_closed=Closed,
    invalid_request=Invalid,
    passthrough=DomainError,
    decode_errors=(KeyError,),
)
SCHEMA = StoreSchema(
    """
    CREATE TABLE IF NOT EXISTS parents (id INTEGER PRIMARY KEY);
    CREATE TABLE IF NOT EXISTS children (
        id INTEGER PRIMARY KEY,
        parent INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED
    );
    """,
    version=2,
)
OPTIONS = WorkerOptions(label="the test store", thread_name="test-sqlite", foreign_keys=True)


@pytest.fixture
async def worker(owner: RootOwner) -> AsyncIterator[SqliteWorker]:
    opened = await SqliteWorker.open(
        owner.lease, owner.lease.root.path / "t.sqlite3", SCHEMA, OPTIONS, ERRORS
    )
    yield opened
    await opened.close()


def count(db: sqlite3.Connection, table: str) -> int:
    return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def workers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("test-sqlite")]


async def test_a_failed_commit_is_rolled_back_and_the_next_write_works(
    worker: SqliteWorker,
) -> None:
    # A deferred foreign key fails at COMMIT, and SQLite leaves that transaction open.
    def orphan(db: sqlite3.Connection) -> None:
        db.execute("INSERT INTO children (id, parent) VALUES (1, 99)")

    with pytest.raises(Refused, match="sqlite: FOREIGN KEY constraint failed") as refused:
        await worker.write(orphan)
    assert isinstance(refused.value.__cause__, sqlite3.IntegrityError)
    await worker.write(lambda db: db.execute("INSERT INTO parents (id) VALUES (1)"))
    assert await worker.read(lambda db: (count(db, "parents"), count(db, "children"))) == (1, 0)


async def test_a_failing_work_is_rolled_back_and_its_own_error_passes_through(
    worker: SqliteWorker,
) -> None:
    class Conflict(DomainError):
        pass

    def half(db: sqlite3.Connection) -> None:
        db.execute("INSERT INTO parents (id) VALUES (1)")
        raise Conflict("refused by the store's own rule")

    with pytest.raises(Conflict):
        await worker.write(half)
    with pytest.raises(Refused, match="unreadable record"):
        await worker.read(lambda db: dict[str, int]()["missing"])
    assert await worker.read(lambda db: count(db, "parents")) == 0


async def test_a_number_sqlite_cannot_hold_is_the_callers_fault(worker: SqliteWorker) -> None:
    with pytest.raises(Invalid, match="out of range"):
        await worker.write(lambda db: db.execute("INSERT INTO parents (id) VALUES (?)", (2**70,)))
    assert await worker.read(lambda db: count(db, "parents")) == 0


async def test_committed_runs_on_the_worker_before_the_next_call(worker: SqliteWorker) -> None:
    seen: list[int] = []
    counter = [0]

    def insert(db: sqlite3.Connection) -> int:
        value = counter[0] + 1
        db.execute("INSERT INTO parents (id) VALUES (?)", (value,))
        return value

    def advance(value: int) -> None:
        counter[0] = value
        seen.append(value)

    # Submitted together: each sees the count the previous one committed, never a stale one.
    results = await asyncio.gather(*(worker.write(insert, committed=advance) for _ in range(5)))
    assert results == seen == [1, 2, 3, 4, 5]


async def test_every_call_is_refused_once_the_owner_or_the_worker_has_closed(
    owner: RootOwner, worker: SqliteWorker
) -> None:
    owner.close()
    assert worker.closed
    with pytest.raises(Closed, match="refuses every call"):
        await worker.read(lambda db: count(db, "parents"))
    await worker.close()
    await worker.close()
    assert workers() == []
    with pytest.raises(Closed):
        await SqliteWorker.open(owner.lease, Path("x.sqlite3"), SCHEMA, OPTIONS, ERRORS)


async def test_a_closed_worker_refuses_calls(worker: SqliteWorker) -> None:
    await worker.close()
    with pytest.raises(Closed, match="is closed"):
        await worker.write(lambda db: None)


async def test_the_schema_version_is_kept_and_a_newer_file_is_refused(owner: RootOwner) -> None:
    path = owner.lease.root.path / "v.sqlite3"
    worker = await SqliteWorker.open(owner.lease, path, SCHEMA, OPTIONS, ERRORS)
    assert await worker.read(lambda db: db.execute("PRAGMA user_version").fetchone()[0]) == 2
    assert await worker.read(lambda db: db.execute("PRAGMA journal_mode").fetchone()[0]) == "wal"
    await worker.close()
    older = StoreSchema(SCHEMA.script, version=1)
    with pytest.raises(Refused, match="schema version 2; this host knows 1"):
        await SqliteWorker.open(owner.lease, path, older, OPTIONS, ERRORS)
    assert workers() == []  # the refused open left no thread behind


async def test_a_database_that_cannot_use_wal_is_refused(
    owner: RootOwner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # opening sets the modes of a file named ":memory:" here
    with pytest.raises(Refused, match="cannot use WAL"):
        await SqliteWorker.open(owner.lease, Path(":memory:"), SCHEMA, OPTIONS, ERRORS)
    assert workers() == []
