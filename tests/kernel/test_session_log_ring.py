"""A session log's reads from its ring of recent entries, from either end of the ring: what the
store itself answers for the same cursor and limit."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from maka_runtime.common.aio import TaskOwner
from maka_runtime.kernel.core.errors import PersistenceFailedError
from maka_runtime.kernel.core.log.events import SystemNote
from maka_runtime.kernel.core.log.session_log import SessionLog
from maka_runtime.kernel.core.session import SessionHeader
from maka_runtime.kernel.store.memory import MemorySessionStore
from tests.support.counting import count_calls


@pytest.mark.parametrize("limit", [1, 3, 7, 100])
async def test_every_cursor_reads_what_the_store_holds(
    limit: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = MemorySessionStore()
    await store.create(
        SessionHeader(id="s", workspace_root="/", cwd="/", created_at=1, last_used_at=1)
    )
    tasks = TaskOwner()
    log = SessionLog("s", store, tasks, ring_size=16)
    for n in range(24):  # more than the ring keeps: the oldest 8 fall out
        await log.append([SystemNote(kind="session_resume", text=f"n{n}", id=f"id{n}", ts=n)])
    first_held = 24 - 16 + 1
    reads = count_calls(monkeypatch, store, "read_messages")
    for after in range(first_held - 1, 26):
        got = await log.read_after(after, limit)
        want = await store.read_messages("s", after_seq=after, limit=limit)
        assert [e.seq for e in got] == [e.seq for e in want], (after, limit)
        assert [e.id for e in got] == [e.id for e in want]
    # Every read above came from the ring (the store was only asked for the expected answers).
    assert len(reads) == 26 - (first_held - 1)
    await tasks.close()


class GatedStore(MemorySessionStore):
    """Appends wait for the test to open the gate (and fail while ``failing`` is set)."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = asyncio.Event()
        self.gate = asyncio.Event()
        self.failing = False

    async def append_messages(self, session_id: str, messages: Any, **options: Any) -> Any:
        self.entered.set()
        await self.gate.wait()
        if self.failing:  # once
            self.failing = False
            raise PersistenceFailedError("the disk is full")
        return await super().append_messages(session_id, messages, **options)


@pytest.mark.parametrize("failing", [False, True])
async def test_a_caller_cancelled_during_its_commit_leaves_the_log_whole(failing: bool) -> None:
    store = GatedStore()
    await store.create(
        SessionHeader(id="s", workspace_root="/", cwd="/", created_at=1, last_used_at=1)
    )
    tasks = TaskOwner()
    log = SessionLog("s", store, tasks)
    note = SystemNote(kind="session_resume", text="kept", id="a", ts=1)
    caller = asyncio.create_task(log.append([note]))
    await store.entered.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    store.failing = failing
    store.gate.set()
    # The writer goes on: the entry is committed and published, or its failure swallowed.
    later = await log.append([SystemNote(kind="session_resume", text="next", id="b", ts=2)])
    held = await log.read_after(0)
    assert [e.text for e in held if isinstance(e, SystemNote)] == (
        ["next"] if failing else ["kept", "next"]
    )
    assert later[0].seq == (1 if failing else 2) and log.last_seq == later[0].seq
    await tasks.close()
