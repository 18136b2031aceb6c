"""Finished runs from memory (core/finished.py): GetRun of a finished run reads no store,
ListRuns decodes only what is not held, and the cache stays within its bytes."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from maka_runtime.resource.core import ShellRunRecord, StoreClosedError
from maka_runtime.resource.core.finished import FinishedRuns
from maka_runtime.resource.core.sizes import wire_size
from tests.resource.conftest import (
    SESSION_ID,
    TEST_CONFIG,
    Host,
    bash_input,
    close_host,
    open_host,
)
from tests.support.run_records import finished_record


async def test_a_finished_run_is_answered_without_the_store(host: Host) -> None:
    final = await host.coordinator.run_foreground_bash(bash_input("echo done", "call.1"))
    await host.store.close()  # from here on every store call is refused
    assert await host.coordinator.get(SESSION_ID, final.ref) == final
    assert await host.coordinator.get("", final.ref) == final  # the ref's own session
    assert host.drain_requests == []  # no store call was made, so nothing tripped


async def test_a_finished_run_read_back_after_a_restart_is_kept(tmp_path: Path) -> None:
    first = await open_host(tmp_path)
    final = await first.coordinator.run_foreground_bash(bash_input("true", "call.1"))
    await close_host(first)
    second = await open_host(tmp_path)
    try:
        assert await second.coordinator.get(SESSION_ID, final.ref) == final  # from the store
        await second.store.close()
        assert await second.coordinator.get(SESSION_ID, final.ref) == final  # from memory
    finally:
        await close_host(second)


async def test_a_page_of_finished_runs_reuses_the_records_held(host: Host) -> None:
    ended = [
        await host.coordinator.run_foreground_bash(bash_input("true", f"call.{n}"))
        for n in range(3)
    ]
    page = await host.coordinator.list_runs(SESSION_ID)
    assert list(page.runs) == ended
    held = [await host.coordinator.get(SESSION_ID, run.ref) for run in ended]
    # The very objects held, not records decoded again from their JSON.
    assert all(listed is kept for listed, kept in zip(page.runs, held, strict=True))


async def test_with_no_cache_a_finished_run_is_read_from_the_store(tmp_path: Path) -> None:
    config = dataclasses.replace(TEST_CONFIG, finished_run_cache_bytes=0)
    opened = await open_host(tmp_path, config=config)
    try:
        final = await opened.coordinator.run_foreground_bash(bash_input("true", "call.1"))
        await opened.store.close()
        with pytest.raises(StoreClosedError):
            await opened.coordinator.get(SESSION_ID, final.ref)
    finally:
        await close_host(opened)


def _record(ref_id: str, *, status: str = "completed", stdout: str = "") -> ShellRunRecord:
    return finished_record(ref_id, session_id=SESSION_ID, status=status, stdout=stdout)


def test_the_cache_keeps_terminal_records_within_its_bytes_least_recent_first_out() -> None:
    records = [_record(f"{n:032x}") for n in range(5)]
    size = wire_size(records[0])
    cache = FinishedRuns(4 * size)  # a record may take at most a quarter: four fit
    for record in records[:4]:
        cache.keep(record)
    assert cache.get(records[0].ref) is records[0]  # now the most recently used
    cache.keep(records[4])  # a fifth: the least recently used (records[1]) goes
    assert cache.get(records[1].ref) is None
    assert all(cache.get(r.ref) is r for r in (records[0], records[2], records[3], records[4]))
    assert len(cache) == 4 and cache.size_bytes == 4 * size == cache.max_bytes


def test_the_cache_ignores_active_records_and_records_too_big_for_it() -> None:
    cache = FinishedRuns(4 * wire_size(_record("0" * 32)) + 64)
    cache.keep(_record("1" * 32, status="running"))
    cache.keep(_record("2" * 32, stdout="x" * 4096))
    assert len(cache) == 0 and cache.size_bytes == 0
    off = FinishedRuns(0)
    off.keep(_record("3" * 32))
    assert off.get(_record("3" * 32).ref) is None
