"""A transaction is durable once its COMMIT returns (``common/sqlite.py``,
``SqliteWorker._transaction``): an error in what follows it — a commit observer, the writer's
checkpoint step — is logged, never handed to the callers. Otherwise a caller would be told that
a committed write failed, and the group commit (``common/group_commit.py``) would take the
batch for a failed transaction and run each of its writes again: a second copy of a kernel
append, a primary-key refusal of a resource insert that is already stored."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from maka_runtime.common.sqlite import SqliteWorker, add_commit_observer
from maka_runtime.common.storage_root import RootOwner, resolve_storage_root, try_acquire_root_owner
from maka_runtime.kernel.core.log.events import SystemNote
from maka_runtime.kernel.store.sqlite import SqliteSessionStore
from maka_runtime.resource.store import SqliteShellRunStore
from tests.kernel.fakes import spec_header
from tests.resource.test_store import record


def _owner(tmp_path: Path, service: str) -> RootOwner:
    owner = try_acquire_root_owner(resolve_storage_root(tmp_path / service, service))
    assert owner is not None
    return owner


def _once(failure: Exception) -> Callable[[], None]:
    """Raises *failure* the first time it is called, nothing after."""
    armed = [True]

    def fail() -> None:
        if armed[0]:
            armed[0] = False
            raise failure

    return fail


Arm = Callable[[Path, SqliteWorker], None]


@pytest.fixture(params=["observer", "checkpoint"])
def fail_once_after_commit(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Arm]:
    """Arms one error right after the next COMMIT of a store: in a commit observer, or in the
    writer's checkpoint step."""
    removals: list[Callable[[], None]] = []

    def arm(path: Path, worker: SqliteWorker) -> None:
        fail = _once(sqlite3.OperationalError("disk I/O error"))
        if request.param == "observer":

            def observer(_name: str, committed: Path, _seconds: float) -> None:
                if committed == path:
                    fail()

            removals.append(add_commit_observer(observer))
            return
        real = worker.checkpoints.committed

        def committed(conn: sqlite3.Connection) -> None:
            fail()
            real(conn)

        monkeypatch.setattr(worker.checkpoints, "committed", committed)

    yield arm
    for remove in removals:
        remove()


async def test_a_resource_batch_that_committed_is_not_run_again(
    tmp_path: Path, fail_once_after_commit: Arm, caplog: pytest.LogCaptureFixture
) -> None:
    owner = _owner(tmp_path, "resource")
    store = await SqliteShellRunStore.open(owner.lease)
    fail_once_after_commit(store.path, store._worker)
    try:
        with caplog.at_level(logging.ERROR, logger="maka_runtime.common.sqlite"):
            # Two writes in one loop step: one batch, one transaction, one COMMIT.
            first, second = await asyncio.gather(
                store.insert(record("a")), store.insert(record("b"))
            )
        assert [first.ref, second.ref] == [record("a").ref, record("b").ref]
        assert "failed after a COMMIT (the transaction stands)" in caplog.text
        with sqlite3.connect(store.path) as db:
            stored = db.execute("SELECT ref, change_seq FROM shell_runs ORDER BY change_seq")
            rows = list(stored)
        assert rows == [(record("a").ref, 1), (record("b").ref, 2)]
        # The bookkeeping follows what was committed.
        assert store.last_change_seq == 2
        assert store.session_version(record("a").session_id) > 0
    finally:
        await store.close()
        owner.close()


async def test_a_kernel_batch_that_committed_is_not_appended_twice(
    tmp_path: Path, fail_once_after_commit: Arm
) -> None:
    owner = _owner(tmp_path, "kernel")
    store = await SqliteSessionStore.open(owner.lease)
    await store.create(spec_header("s1"))
    fail_once_after_commit(store.path, store._worker)
    try:
        await asyncio.gather(
            store.append_messages("s1", [SystemNote(kind="error", text="one")]),
            store.append_messages("s1", [SystemNote(kind="error", text="two")]),
        )
        entries = await store.read_messages("s1")
        log = [
            (entry.seq, entry.text if isinstance(entry, SystemNote) else "") for entry in entries
        ]
        assert log == [(1, "one"), (2, "two")]  # each once, in order
    finally:
        await store.close()
        owner.close()
