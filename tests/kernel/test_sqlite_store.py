"""What only the SQLite store has: files, WAL, ownership, reopening, storage failures."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest

from maka_runtime.common.storage_root import RootOwner, resolve_storage_root, try_acquire_root_owner
from maka_runtime.kernel.core import PersistenceFailedError, SessionQuery, StoreClosedError
from maka_runtime.kernel.core.log.events import SystemNote, TurnState, UserMessage
from maka_runtime.kernel.store.sqlite import SqliteSessionStore

from .fakes import spec_header


async def test_database_is_a_wal_file_under_the_root(
    sqlite_store: SqliteSessionStore, kernel_owner: RootOwner
) -> None:
    await sqlite_store.create(spec_header("s1"))
    assert sqlite_store.path.parent == kernel_owner.root.path
    with sqlite3.connect(sqlite_store.path) as probe:
        assert probe.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_everything_survives_a_reopen_by_a_new_owner(tmp_path: Path) -> None:
    root = resolve_storage_root(tmp_path / "root", "kernel")
    owner = try_acquire_root_owner(root)
    assert owner is not None
    store = await SqliteSessionStore.open(owner.lease)
    await store.create(spec_header("s1"))
    await store.append_messages(
        "s1", [UserMessage(turn_id="t1", text="x"), TurnState(turn_id="t1", status="running")]
    )
    await store.close()
    owner.close()

    owner = try_acquire_root_owner(root)
    assert owner is not None
    reopened = await SqliteSessionStore.open(owner.lease)
    try:
        assert (await reopened.read_header("s1")).id == "s1"
        assert [m.seq for m in await reopened.read_messages("s1")] == [1, 2]
        assert [t.status for t in await reopened.list_turns("s1")] == ["running"]
        [note] = await reopened.append_messages("s1", [SystemNote(kind="error", text="x")])
        assert note.seq == 3
    finally:
        await reopened.close()
        owner.close()


async def test_refuses_every_call_once_the_owner_has_closed(
    sqlite_store: SqliteSessionStore, kernel_owner: RootOwner
) -> None:
    await sqlite_store.create(spec_header("s1"))
    kernel_owner.close()
    with pytest.raises(StoreClosedError):
        await sqlite_store.read_header("s1")
    with pytest.raises(StoreClosedError):
        await sqlite_store.append_messages("s1", [SystemNote(kind="error", text="x")])


async def test_refuses_every_call_once_closed(sqlite_store: SqliteSessionStore) -> None:
    await sqlite_store.close()
    with pytest.raises(StoreClosedError):
        await sqlite_store.read_header("s1")
    await sqlite_store.close()


async def test_concurrent_appends_get_unique_consecutive_sequences(
    sqlite_store: SqliteSessionStore,
) -> None:
    await sqlite_store.create(spec_header("s1"))
    batches = await asyncio.gather(
        *(
            sqlite_store.append_messages(
                "s1", [SystemNote(kind="error", text=f"{i}-{j}") for j in range(3)]
            )
            for i in range(20)
        )
    )
    seqs = sorted(m.seq for batch in batches for m in batch)
    assert seqs == list(range(1, 61))
    for batch in batches:
        assert [m.seq for m in batch] == list(range(batch[0].seq, batch[0].seq + 3))


async def test_storage_failures_become_persistence_failed(
    sqlite_store: SqliteSessionStore,
) -> None:
    await sqlite_store.create(spec_header("s1"))
    with sqlite3.connect(sqlite_store.path) as saboteur:
        saboteur.execute("DROP TABLE messages")
    with pytest.raises(PersistenceFailedError, match="sqlite"):
        await sqlite_store.append_messages("s1", [SystemNote(kind="error", text="x")])
    # the failed transaction was rolled back: the header is untouched and still readable
    assert (await sqlite_store.read_header("s1")).id == "s1"


async def test_a_header_stored_before_owners_is_listed_as_the_local_principals(
    sqlite_store: SqliteSessionStore,
) -> None:
    await sqlite_store.create(dataclasses.replace(spec_header("old"), owner=""))
    await sqlite_store.create(dataclasses.replace(spec_header("new"), owner="alice"))
    # As an older kernel wrote it: no "owner" key in the header at all.
    with sqlite3.connect(sqlite_store.path) as older:
        (text,) = older.execute("SELECT header FROM sessions WHERE id = 'old'").fetchone()
        header = json.loads(text)
        del header["owner"]
        older.execute("UPDATE sessions SET header = ? WHERE id = 'old'", (json.dumps(header),))
    assert (await sqlite_store.read_header("old")).owner == ""

    async def listed(owners: tuple[str, ...] | None) -> list[str]:
        page = await sqlite_store.list_sessions(SessionQuery(owners=owners))
        return sorted(h.id for h in page.sessions)

    assert await listed(("local", "")) == ["old"]
    assert await listed(("alice",)) == ["new"]
    assert await listed(None) == ["new", "old"]
