"""The SQLite session store's group commit and header cache (see ``store/group_commit.py``)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from maka_runtime.common.sqlite import add_commit_observer
from maka_runtime.kernel.core import NotFoundError, PersistenceFailedError
from maka_runtime.kernel.core.log.events import SystemNote, TurnState, UserMessage
from maka_runtime.kernel.store.sqlite import SqliteSessionStore

from .fakes import spec_header


@pytest.fixture
def commits() -> Iterator[list[Path]]:
    seen: list[Path] = []
    remove = add_commit_observer(lambda name, path, seconds: seen.append(path))
    yield seen
    remove()


async def test_writes_of_concurrent_sessions_share_one_transaction(
    sqlite_store: SqliteSessionStore, commits: list[Path]
) -> None:
    for index in range(8):
        await sqlite_store.create(spec_header(f"s{index}"))
    commits.clear()
    stamped = await asyncio.gather(
        *(
            sqlite_store.append_messages(
                f"s{index}",
                [UserMessage(turn_id="t1", text="x"), TurnState(turn_id="t1", status="running")],
            )
            for index in range(8)
        ),
        *(sqlite_store.update_header(f"s{index}", {"status": "running"}) for index in range(8)),
    )
    assert [p for p in commits if p == sqlite_store.path] == [sqlite_store.path]
    assert all([m.seq for m in batch] == [1, 2] for batch in stamped[:8] if isinstance(batch, list))
    for index in range(8):
        assert [m.seq for m in await sqlite_store.read_messages(f"s{index}")] == [1, 2]
        assert (await sqlite_store.read_header(f"s{index}")).status == "running"


async def test_a_failing_write_is_rolled_back_alone(
    sqlite_store: SqliteSessionStore, commits: list[Path]
) -> None:
    await sqlite_store.create(spec_header("s1"))
    commits.clear()
    ok, missing, other = await asyncio.gather(
        sqlite_store.append_messages("s1", [SystemNote(kind="error", text="kept")]),
        sqlite_store.append_messages("nobody", [SystemNote(kind="error", text="lost")]),
        sqlite_store.update_header("s1", {"name": "renamed"}),
        return_exceptions=True,
    )
    assert isinstance(missing, NotFoundError)
    assert not isinstance(ok, BaseException) and not isinstance(other, BaseException)
    assert len(commits) == 1
    [kept] = await sqlite_store.read_messages("s1")
    assert isinstance(kept, SystemNote) and kept.text == "kept"
    assert (await sqlite_store.read_header("s1")).name == "renamed"


async def test_a_failed_transaction_gives_each_write_its_own_outcome(
    sqlite_store: SqliteSessionStore, kernel_owner: object
) -> None:
    await sqlite_store.create(spec_header("s1"))
    # A statement error that ends the transaction itself: the batch cannot commit, so each
    # write runs again alone and only the bad one fails.
    aborting = sqlite_store._grouped.write(lambda conn: conn.execute("ROLLBACK"))
    results = await asyncio.gather(
        sqlite_store.append_messages("s1", [SystemNote(kind="error", text="kept")]),
        aborting,
        return_exceptions=True,
    )
    assert not isinstance(results[0], BaseException)
    assert isinstance(results[1], PersistenceFailedError)
    assert isinstance(results[1].__cause__, sqlite3.Error)
    assert [m.seq for m in await sqlite_store.read_messages("s1")] == [1]


async def test_a_write_taken_into_a_failed_transaction_runs_again_though_its_caller_left(
    sqlite_store: SqliteSessionStore, kernel_owner: object
) -> None:
    """A caller cancelled once its batch was taken never undoes its write: if that batch's
    transaction fails as a whole, the write runs again alone all the same."""
    await sqlite_store.create(spec_header("s1"))
    entered, release = threading.Event(), threading.Event()

    def aborting(conn: sqlite3.Connection) -> None:
        entered.set()  # the batch is taken and running on the store's thread
        release.wait(timeout=10)
        conn.execute("ROLLBACK")  # ends the transaction: the batch cannot commit

    leaving = asyncio.ensure_future(
        sqlite_store.append_messages("s1", [SystemNote(kind="error", text="taken")])
    )
    failing = asyncio.ensure_future(sqlite_store._grouped.write(aborting))
    await asyncio.get_running_loop().run_in_executor(None, entered.wait, 10)
    leaving.cancel()
    await asyncio.sleep(0)
    release.set()
    with pytest.raises(PersistenceFailedError):
        await failing
    await sqlite_store._grouped.drain()
    assert leaving.cancelled()
    [kept] = await sqlite_store.read_messages("s1")
    assert isinstance(kept, SystemNote) and kept.text == "taken"


@pytest.mark.parametrize("write", ["update", "remove"])
async def test_the_header_cache_follows_a_rerun_write_whose_caller_left(
    sqlite_store: SqliteSessionStore, kernel_owner: object, write: str
) -> None:
    """A header write in a batch whose transaction failed runs again alone, after its caller
    was cancelled; a read that ran between the two must not leave the old header cached."""
    await sqlite_store.create(spec_header("s1"))
    loop = asyncio.get_running_loop()
    entered = [threading.Event(), threading.Event()]
    release = [threading.Event(), threading.Event()]
    runs = [0]

    def aborting(conn: sqlite3.Connection) -> None:
        run = runs[0]
        runs[0] += 1
        entered[run].set()
        release[run].wait(timeout=10)
        conn.execute("ROLLBACK")  # ends the transaction: its batch cannot commit

    failing = asyncio.ensure_future(sqlite_store._grouped.write(aborting))
    leaving: asyncio.Future[object]
    if write == "update":
        leaving = asyncio.ensure_future(sqlite_store.update_header("s1", {"name": "renamed"}))
    else:
        leaving = asyncio.ensure_future(sqlite_store.remove("s1"))
    await loop.run_in_executor(None, entered[0].wait, 10)  # the batch of both is running
    release[0].set()
    await loop.run_in_executor(None, entered[1].wait, 10)  # it failed; each runs again alone
    leaving.cancel()
    await asyncio.sleep(0)
    reading = asyncio.ensure_future(sqlite_store.read_header("s1"))
    await asyncio.sleep(0)  # its read reaches the store's thread before the rerun of the write
    release[1].set()
    with pytest.raises(PersistenceFailedError):
        await failing
    await reading
    await sqlite_store._grouped.drain()
    assert leaving.cancelled()
    if write == "update":
        assert (await sqlite_store.read_header("s1")).name == "renamed"
        held = sqlite_store.held_header("s1")
        assert held is None or held.name == "renamed"
    else:
        assert sqlite_store.held_header("s1") is None
        with pytest.raises(NotFoundError):
            await sqlite_store.read_header("s1")


async def test_headers_are_read_from_the_cache_of_what_was_committed(
    sqlite_store: SqliteSessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    await sqlite_store.create(spec_header("s1"))
    await sqlite_store.update_header("s1", {"name": "renamed"})

    async def refused(work: object) -> object:
        raise AssertionError("read_header went to the SQLite thread")

    monkeypatch.setattr(sqlite_store, "_call", refused)
    assert (await sqlite_store.read_header("s1")).name == "renamed"


async def test_a_write_the_cache_does_not_know_forgets_the_headers(
    sqlite_store: SqliteSessionStore,
) -> None:
    await sqlite_store.create(spec_header("s1"))
    assert (await sqlite_store.read_header("s1")).name != "behind its back"

    def rename(conn: sqlite3.Connection) -> None:
        conn.execute(
            "UPDATE sessions SET header = json_set(header, '$.name', 'behind its back') "
            "WHERE id = 's1'"
        )

    await sqlite_store._write(rename)
    assert (await sqlite_store.read_header("s1")).name == "behind its back"
    await sqlite_store.remove("s1")
    with pytest.raises(NotFoundError):
        await sqlite_store.read_header("s1")


async def test_the_listing_version_moves_with_committed_header_writes_only(
    sqlite_store: SqliteSessionStore,
) -> None:
    await sqlite_store.create(spec_header("s1"))
    version = sqlite_store.listing_version
    await sqlite_store.append_messages("s1", [SystemNote(kind="error", text="an append")])
    assert sqlite_store.listing_version == version  # appends change no listed header
    with pytest.raises(NotFoundError):
        await sqlite_store.update_header("nobody", {"name": "x"})
    assert sqlite_store.listing_version == version  # rolled back: nothing listed changed
    renamed, missing = await asyncio.gather(
        sqlite_store.update_header("s1", {"name": "renamed"}),
        sqlite_store.update_header("nobody", {"name": "x"}),
        return_exceptions=True,
    )
    assert isinstance(missing, NotFoundError) and not isinstance(renamed, BaseException)
    assert sqlite_store.listing_version == version + 1  # one commit, one applied header write
