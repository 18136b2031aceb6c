"""Limits, drain under load, residency accounting and the fail-stop latch."""

from __future__ import annotations

import asyncio
import dataclasses
import signal
import sqlite3
from pathlib import Path

import pytest

from maka_runtime.resource.core import (
    DrainReport,
    HostDrainingError,
    PersistenceFailedError,
    ResourceExhaustedError,
    ShellRunRecord,
)
from tests.resource.conftest import (
    SESSION_ID,
    TEST_CONFIG,
    Host,
    bash_input,
    close_host,
    helper,
    open_host,
    process_gone,
    read_until,
)


async def test_live_run_and_pty_limits_are_resource_exhausted(tmp_path: Path) -> None:
    host = await open_host(
        tmp_path,
        config=dataclasses.replace(
            TEST_CONFIG, max_live_runs=3, max_live_ptys=1, max_live_runs_per_session=3
        ),
    )
    try:
        coordinator = host.coordinator
        pty = await coordinator.run_background_bash(bash_input("sleep 60", "c1", pty=True))
        with pytest.raises(ResourceExhaustedError) as too_many_ptys:
            await coordinator.run_background_bash(bash_input("sleep 60", "c2", pty=True))
        assert too_many_ptys.value.code == "resource_exhausted"
        await coordinator.run_background_bash(bash_input("sleep 60", "c3"))
        await coordinator.run_background_bash(bash_input("sleep 60", "c4"))
        with pytest.raises(ResourceExhaustedError):
            await coordinator.run_background_bash(bash_input("sleep 60", "c5"))
        with pytest.raises(ResourceExhaustedError):
            await coordinator.run_foreground_bash(bash_input("true", "c6"))
        assert host.active_residencies == 3  # refused starts gave theirs back
        page = await coordinator.list_runs(SESSION_ID)
        assert len(page.runs) == 3
        # Ending a run frees its slot.
        await coordinator.stop(SESSION_ID, pty.ref)
        again = await coordinator.run_background_bash(bash_input("sleep 60", "c7", pty=True))
        assert again.status == "running"
        assert host.drain_requests == []
    finally:
        await close_host(host)
    assert host.active_residencies == 0


async def test_drain_under_concurrent_starts_loses_no_run_record(host: Host) -> None:
    coordinator = host.coordinator
    # Six sessions, five starts each: each session's first start runs concurrently with the
    # other sessions', the rest queue at their session's admission gate. When the first start
    # completes, the queued ones cannot all have passed their gate yet.
    starts = [
        asyncio.create_task(
            coordinator.run_background_bash(
                bash_input("sleep 60", f"call.{i}", session_id=f"session-{i % 6}")
            )
        )
        for i in range(30)
    ]
    await asyncio.wait(starts, return_when=asyncio.FIRST_COMPLETED)
    coordinator.begin_drain()
    outcomes = await asyncio.gather(*starts, return_exceptions=True)
    report = await coordinator.close()

    started = [outcome for outcome in outcomes if isinstance(outcome, ShellRunRecord)]
    refused = [outcome for outcome in outcomes if isinstance(outcome, HostDrainingError)]
    assert refused, "starts still queued at their gate are refused"
    assert len(started) + len(refused) == len(starts), outcomes
    assert started, "at least the first start completed before the drain"

    with sqlite3.connect(host.store.path) as db:
        stored = dict(db.execute("SELECT ref, status FROM shell_runs").fetchall())
    assert set(stored) == {record.ref for record in started}  # nothing lost, nothing extra
    assert set(stored.values()) == {"cancelled"}
    assert sum(report.ended.values()) == len(started)
    for record in started:
        final = await coordinator.get(record.session_id, record.ref)
        assert final.status == "cancelled"
        if final.process is not None:
            assert process_gone(final.process.pid)
    assert host.active_residencies == 0
    assert host.released_residencies == len(started)
    assert host.drain_requests == []


async def test_a_background_run_whose_caller_left_mid_start_keeps_its_residency(
    host: Host,
) -> None:
    starting = asyncio.create_task(
        host.coordinator.run_background_bash(bash_input("sleep 30", "call.left"))
    )
    for _ in range(50):  # until it is admitted (a few loop steps)
        if host.manager.live_counts() == (1, 0):
            break
        await asyncio.sleep(0)
    assert host.manager.live_counts() == (1, 0)
    starting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await starting
    # The run goes on without its caller, and holds its token until it ends.
    async for live in host.coordinator.watch(SESSION_ID):
        if live.status == "running":
            break
    assert host.active_residencies == 1
    stopped = await host.coordinator.stop(SESSION_ID, live.ref)
    assert stopped.status == "cancelled"
    assert host.active_residencies == 0 and host.released_residencies == 1


async def test_a_run_that_cannot_start_is_failed_and_returns_its_residency(
    tmp_path: Path,
) -> None:
    # One environment string of 256 KiB is more than execve accepts: the spawn itself fails.
    # (BIG reaches the run only because it is allowed: runs see an allow-list of variables.)
    config = dataclasses.replace(
        TEST_CONFIG,
        base_env={"PATH": "/usr/bin:/bin", "BIG": "x" * 262144},
        sandbox=dataclasses.replace(TEST_CONFIG.sandbox, env_allow=("BIG",)),
    )
    host = await open_host(tmp_path, config=config)
    try:
        record = await host.coordinator.run_background_bash(bash_input("true", "call.e2big"))
        assert record.status == "failed"
        assert record.message is not None
        assert record.message.startswith("Command could not start:")
        assert "Argument list too long" in record.message
        assert record.process is None
        assert host.active_residencies == 0
        assert host.released_residencies == 1
        assert host.drain_requests == []  # a command that cannot start is not a host failure
        assert (await host.coordinator.get(SESSION_ID, record.ref)) == record
    finally:
        await close_host(host)


async def test_losing_the_store_trips_the_fail_stop_latch(host: Host) -> None:
    run = await host.coordinator.run_background_bash(bash_input("sleep 60", "call.lost"))
    host.owner.close()  # the store refuses every call from now on
    with pytest.raises(PersistenceFailedError):
        await host.coordinator.stop(SESSION_ID, run.ref)
    assert host.drain_requests, "a state change that cannot be stored must trip the latch"
    assert host.active_residencies == 0  # the residency is still returned exactly once
    assert host.released_residencies == 1
    assert run.process is not None and process_gone(run.process.pid)
    with pytest.raises(PersistenceFailedError):
        await host.coordinator.run_background_bash(bash_input("true", "call.after"))
    assert host.active_residencies == 0


async def test_close_is_idempotent_and_reports_how_runs_ended(host: Host) -> None:
    await host.coordinator.run_background_bash(bash_input("sleep 60", "call.a"))
    await host.coordinator.run_background_bash(bash_input("sleep 60", "call.b", pty=True))
    first = await host.coordinator.close()
    assert dict(first.ended) == {"cancelled": 2}
    assert await host.coordinator.close() == first
    with pytest.raises(HostDrainingError):
        await host.coordinator.run_foreground_bash(bash_input("true", "call.c"))


async def test_a_drain_report_taken_early_lists_what_is_still_ending_and_hurry_kills_it(
    tmp_path: Path,
) -> None:
    # A termination grace far longer than the test: only hurry() can end the stubborn run.
    host = await open_host(tmp_path, config=dataclasses.replace(TEST_CONFIG, termination_grace=60))
    try:
        coordinator, manager = host.coordinator, host.manager
        quick = await coordinator.run_background_bash(bash_input("sleep 60", "call.quick"))
        stubborn = await coordinator.run_background_bash(
            bash_input(f'trap "" TERM; {helper("ignore_term.py")}', "call.stubborn")
        )
        await read_until(manager, stubborn.ref, b"READY")
        assert manager.drain_progress() == DrainReport()  # nothing is draining yet

        coordinator.begin_drain()
        await manager.wait_terminal(SESSION_ID, quick.ref)
        progress = manager.drain_progress()
        assert dict(progress.ended) == {"cancelled": 1}
        assert progress.unfinished == (stubborn.ref,)
        assert progress.lost == 0

        manager.hurry()  # the host's shutdown grace ran out: SIGKILL now
        report = await asyncio.wait_for(coordinator.close(), timeout=20)
        assert dict(report.ended) == {"cancelled": 2}
        assert report.unfinished == ()
        assert manager.drain_progress() == report
        final = await coordinator.get(SESSION_ID, stubborn.ref)
        assert (final.status, final.exit_code, final.signal) == ("cancelled", 130, signal.SIGKILL)
        assert final.process is not None and process_gone(final.process.pid)
        assert host.active_residencies == 0
        assert host.drain_requests == []
    finally:
        await close_host(host)
