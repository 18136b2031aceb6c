"""The SQLite shell-run store on a storage root's owner lease."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from maka_runtime.common.storage_root import (
    RootOwnedError,
    RootOwner,
    acquire_root_owner,
    resolve_storage_root,
    try_acquire_root_owner,
)
from maka_runtime.resource.core import (
    InternalFailureError,
    PipesOutput,
    ProcessIdentity,
    ShellRunRecord,
    StoreClosedError,
)
from maka_runtime.resource.store import SqliteShellRunStore
from tests.resource.conftest import SESSION_ID, Host, bash_input, close_host, open_host
from tests.support.run_records import run_record


def record(ref_id: str, *, session_id: str = SESSION_ID, created_at: int = 1000) -> ShellRunRecord:
    return run_record(ref_id, session_id=session_id, created_at=created_at, updated_at=created_at)


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


async def test_the_database_is_wal_and_every_write_is_committed(
    store: SqliteShellRunStore,
) -> None:
    stored = await store.insert(record("a"))
    assert stored.change_seq == 1
    with sqlite3.connect(store.path) as db:  # another connection sees the commit
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("SELECT count(*) FROM shell_runs").fetchone()[0] == 1
    assert await store.get(stored.ref) == stored


async def test_updates_are_compare_and_set_and_terminal_records_never_change(
    store: SqliteShellRunStore,
) -> None:
    stored = await store.insert(record("a"))
    running = await store.update(stored.started(process=ProcessIdentity(1, 2, "boot"), now=1100))
    assert (running.revision, running.change_seq) == (2, 2)
    # Not a refused write but a divergence from what this host wrote: an internal failure.
    with pytest.raises(InternalFailureError, match="not the stored active revision"):
        await store.update(stored.started(process=ProcessIdentity(1, 2, "boot"), now=1100))
    done = await store.update(running.finished(status="completed", now=1200, output=PipesOutput()))
    # A forged "next revision" of a terminal record is refused by the store as well.
    forged = dataclasses.replace(done, revision=done.revision + 1, status="running")
    with pytest.raises(InternalFailureError):
        await store.update(forged)
    assert await store.get(done.ref) == done


async def test_change_seq_follows_commit_order_across_runs(store: SqliteShellRunStore) -> None:
    a = await store.insert(record("a"))
    b = await store.insert(record("b"))
    a2 = await store.update(a.started(process=ProcessIdentity(1, 2, "boot"), now=1))
    assert [a.change_seq, b.change_seq, a2.change_seq] == [1, 2, 3]
    changes = await store.list_changes(SESSION_ID, after_change_seq=1, limit=10)
    assert [(change.ref, change.change_seq) for change in changes] == [(b.ref, 2), (a.ref, 3)]


async def test_listing_pages_by_creation_and_active_runs(store: SqliteShellRunStore) -> None:
    for index in range(5):
        await store.insert(record(f"r{index}", created_at=1000 + index))
    await store.insert(record("other", session_id="other-session"))
    first = await store.list_session(SESSION_ID, after=None, limit=2)
    assert [item.id for item in first] == ["r0", "r1"]
    after = (first[-1].created_at, first[-1].ref)
    rest = await store.list_session(SESSION_ID, after=after, limit=10)
    assert [item.id for item in rest] == ["r2", "r3", "r4"]
    assert len(await store.list_active()) == 6


async def test_the_store_refuses_every_call_once_the_owner_has_closed(
    owner: RootOwner, store: SqliteShellRunStore
) -> None:
    stored = await store.insert(record("a"))
    owner.close()
    calls = [
        store.insert(record("b")),
        store.update(stored.started(process=ProcessIdentity(1, 2, "boot"), now=1)),
        store.get(stored.ref),
        store.list_session(SESSION_ID, after=None, limit=10),
        store.list_changes(SESSION_ID, after_change_seq=0, limit=10),
        store.list_active(),
    ]
    for call in calls:
        with pytest.raises(StoreClosedError) as refused:
            await call
        assert refused.value.code == "persistence_failed"
    with pytest.raises(StoreClosedError):
        await SqliteShellRunStore.open(owner.lease)


def test_a_second_owner_of_the_root_is_refused_naming_the_first(tmp_path: Path) -> None:
    root = resolve_storage_root(tmp_path / "root", "resource")
    first = try_acquire_root_owner(root)
    assert first is not None
    try:
        assert try_acquire_root_owner(root) is None  # refused at once, never queued
        with pytest.raises(RootOwnedError, match=rf"pid {__import__('os').getpid()}"):
            acquire_root_owner(root)
    finally:
        first.close()
    second = try_acquire_root_owner(root)
    assert second is not None
    second.close()


async def test_runs_survive_a_restart_of_the_host(tmp_path: Path) -> None:
    first = await open_host(tmp_path)
    try:
        done = await first.coordinator.run_foreground_bash(bash_input("echo kept", "call.kept"))
    finally:
        await close_host(first)
    second: Host = await open_host(tmp_path)
    try:
        assert await second.coordinator.get(SESSION_ID, done.ref) == done
        assert second.manager.recovery is not None
        assert second.manager.recovery.orphaned == ()
        later = await second.coordinator.run_foreground_bash(bash_input("true", "call.later"))
        assert later.change_seq > done.change_seq
    finally:
        await close_host(second)
