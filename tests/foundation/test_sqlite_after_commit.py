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


def _failing_observer(path: Path) -> Iterator[None]:
    fail = _once(sqlite3.OperationalError("disk I/O error"))

    def observer(_name: str, committed: Path, _seconds: float) -> None:
        if committed == path:
            fail()

    remove = add_commit_observer(observer)
    try:
        yield
    finally:
        remove()


def _failing_checkpoint(worker: SqliteWorker, monkeypatch: pytest.MonkeyPatch) -> None:
    fail, real = _once(sqlite3.OperationalError("disk I/O error")), worker.checkpoints.committed

    def committed(conn: sqlite3.Connection) -> None:
        fail()
        real(conn)

    monkeypatch.setattr(worker.checkpoints, "committed", committed)


@pytest.mark.parametrize("step", ["observer", "checkpoint"])
async def test_a_resource_batch_that_committed_is_not_run_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, step: str
) -> None:
    owner = _owner(tmp_path, "resource")
    store = await SqliteShellRunStore.open(owner.lease)
    failing = None
    if step == "observer":
        failing = _failing_observer(store.path)
        next(failing)
    else:
        _failing_checkpoint(store._worker, monkeypatch)
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
        if failing is not None:
            next(failing, None)
        await store.close()
        owner.close()


@pytest.mark.parametrize("step", ["observer", "checkpoint"])
async def test_a_kernel_batch_that_committed_is_not_appended_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    owner = _owner(tmp_path, "kernel")
    store = await SqliteSessionStore.open(owner.lease)
    await store.create(spec_header("s1"))
    failing = None
    if step == "observer":
        failing = _failing_observer(store.path)
        next(failing)
    else:
        _failing_checkpoint(store._worker, monkeypatch)
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
        if failing is not None:
            next(failing, None)
        await store.close()
        owner.close()
