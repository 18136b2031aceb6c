"""The start-up sweep: a host killed with SIGKILL leaves runs behind; the next host orphans
them, kills their processes, and never signals a recycled PID."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from maka_runtime.common.storage_root import resolve_storage_root, try_acquire_root_owner
from maka_runtime.resource.core import (
    ORPHANED_MESSAGE,
    PipesOutput,
    ProcessIdentity,
    ShellRunRecord,
)
from maka_runtime.resource.core.process.procfs import boot_id, read_stat
from maka_runtime.resource.store import SqliteShellRunStore
from tests.resource.conftest import (
    HELPERS,
    SESSION_ID,
    bash_input,
    close_host,
    open_host,
    process_gone,
)
from tests.support.run_records import run_record


async def test_runs_of_a_killed_host_are_orphaned_and_their_processes_killed(
    tmp_path: Path,
) -> None:
    doomed = await asyncio.create_subprocess_exec(
        sys.executable,
        str(HELPERS / "host_that_dies.py"),
        str(tmp_path),
        stdout=subprocess.PIPE,
    )
    assert doomed.stdout is not None
    try:
        line = await asyncio.wait_for(doomed.stdout.readline(), timeout=30)
    finally:
        doomed.kill()  # SIGKILL: no cleanup of any kind
        await doomed.wait()
    started = json.loads(line)
    refs: list[str] = started["refs"]
    pids: list[int] = started["pids"]
    try:
        assert len(refs) == 3 and len(pids) == 4
        assert not any(process_gone(pid) for pid in pids), "the runs outlive their host"
        await _sweep_and_check(tmp_path, refs, pids)
    finally:
        for pid in pids:  # only if the sweep failed to
            if not process_gone(pid):
                os.kill(pid, signal.SIGKILL)


async def _sweep_and_check(tmp_path: Path, refs: list[str], pids: list[int]) -> None:
    host = await open_host(tmp_path)
    try:
        report = host.manager.recovery
        assert report is not None
        assert sorted(report.orphaned) == sorted(refs)
        assert set(pids) <= set(report.killed_pids)
        assert report.reused_pids == () and report.survived_pids == ()
        assert all(process_gone(pid) for pid in pids)
        for ref in refs:
            orphan = await host.coordinator.get("doomed", ref)
            assert orphan.status == "orphaned"
            assert orphan.message == ORPHANED_MESSAGE
            assert orphan.revision == 3  # starting, running, orphaned
        # The new host works.
        fresh = await host.coordinator.run_foreground_bash(bash_input("printf alive", "call.new"))
        assert fresh.output == PipesOutput(stdout="alive")
    finally:
        await close_host(host)


def _unrelated_process() -> subprocess.Popen[bytes]:
    """A process leading its own group and session, as a run's leader would."""
    return subprocess.Popen(["sleep", "60"], start_new_session=True)


def _running_record(run_id: str, process: ProcessIdentity) -> ShellRunRecord:
    return run_record(
        run_id,
        session_id=SESSION_ID,
        command="sleep 60",
        status="running",
        revision=2,
        started_at=1,
        process=process,
    )


async def test_a_recycled_pid_is_never_signalled(tmp_path: Path) -> None:
    # Two unrelated processes, each leading its own group as a run's leader would. The store
    # claims both as runs of a dead host: one with its true start time (so it is the run's),
    # one with another start time (its PID was "recycled").
    bystander = _unrelated_process()
    leftover = _unrelated_process()
    try:
        bystander_stat, leftover_stat = read_stat(bystander.pid), read_stat(leftover.pid)
        assert bystander_stat is not None and leftover_stat is not None
        owner = try_acquire_root_owner(resolve_storage_root(tmp_path / "interactive", "resource"))
        assert owner is not None
        store = await SqliteShellRunStore.open(owner.lease)
        await store.insert(
            _running_record(
                "recycled",
                ProcessIdentity(bystander.pid, bystander_stat.start_time - 1, boot_id()),
            )
        )
        await store.insert(
            _running_record(
                "leftover", ProcessIdentity(leftover.pid, leftover_stat.start_time, boot_id())
            )
        )
        await store.close()
        owner.close()

        host = await open_host(tmp_path)
        try:
            report = host.manager.recovery
            assert report is not None
            assert len(report.orphaned) == 2
            assert report.reused_pids == (bystander.pid,)
            assert bystander.pid not in report.killed_pids
            assert leftover.pid in report.killed_pids
            assert leftover.wait(timeout=10) == -signal.SIGKILL
            assert bystander.poll() is None, "a process that merely reuses a PID must live on"
            for ref_id in ("recycled", "leftover"):
                orphan = await host.coordinator.get(
                    SESSION_ID, f"maka://runtime/background-tasks/{ref_id}"
                )
                assert orphan.status == "orphaned"
        finally:
            await close_host(host)
    finally:
        for process in (bystander, leftover):
            if process.poll() is None:
                os.kill(process.pid, signal.SIGKILL)
            process.wait()


async def test_a_run_from_another_boot_has_nothing_to_kill(tmp_path: Path) -> None:
    bystander = _unrelated_process()
    try:
        stat = read_stat(bystander.pid)
        assert stat is not None
        owner = try_acquire_root_owner(resolve_storage_root(tmp_path / "interactive", "resource"))
        assert owner is not None
        store = await SqliteShellRunStore.open(owner.lease)
        await store.insert(
            _running_record("old-boot", ProcessIdentity(bystander.pid, stat.start_time, "other"))
        )
        await store.close()
        owner.close()
        host = await open_host(tmp_path)
        try:
            assert host.manager.recovery is not None
            assert host.manager.recovery.killed_pids == ()
            assert bystander.poll() is None
        finally:
            await close_host(host)
    finally:
        bystander.kill()
        bystander.wait()
