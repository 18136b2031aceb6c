"""Fixtures of the kernel suite: stores on real SQLite files and in memory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from maka_runtime.common.storage_root import RootOwner, resolve_storage_root, try_acquire_root_owner
from maka_runtime.kernel.core.recovery import RecoverableStore
from maka_runtime.kernel.store import MemorySessionStore
from maka_runtime.kernel.store.sqlite import SqliteSessionStore


@pytest.fixture
def kernel_owner(tmp_path: Path) -> Iterator[RootOwner]:
    root = resolve_storage_root(tmp_path / "kernel-root", "kernel")
    owner = try_acquire_root_owner(root)
    assert owner is not None
    yield owner
    owner.close()


@pytest.fixture
async def sqlite_store(kernel_owner: RootOwner) -> AsyncIterator[SqliteSessionStore]:
    store = await SqliteSessionStore.open(kernel_owner.lease)
    yield store
    await store.close()


@pytest.fixture(params=["memory", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[RecoverableStore]:
    """Every store implementation, for contract tests."""
    if request.param == "memory":
        yield MemorySessionStore()
        return
    root = resolve_storage_root(tmp_path / "contract-root", "kernel")
    owner = try_acquire_root_owner(root)
    assert owner is not None
    sqlite = await SqliteSessionStore.open(owner.lease)
    try:
        yield sqlite
    finally:
        await sqlite.close()
        owner.close()
