"""Ending runs: timeouts, stops, programs that ignore SIGTERM, leftovers, deaths by signal."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import signal
from pathlib import Path

import pytest

from maka_runtime.resource.core import (
    CANCELLED_MESSAGE,
    InternalFailureError,
    PipesOutput,
    ProcessIdentity,
    ShellRunUpdate,
    timed_out_message,
)
from maka_runtime.resource.core.sandbox import ExecutionBoundary
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


async def test_timeout_records_124_and_the_timeout_message(host: Host) -> None:
    run = await host.coordinator.run_foreground_bash(
        bash_input("sleep 30", "call.timeout", timeout_ms=200)
    )
    assert run.status == "timed_out"
    assert run.exit_code == 124
    assert run.message == "Command timed out after 200 ms"
    assert run.message == timed_out_message(200)
    assert run.signal == signal.SIGTERM  # sleep honours TERM: no KILL was needed


async def test_stop_records_130_and_returns_the_final_snapshot(host: Host) -> None:
    started = await host.coordinator.run_background_bash(
        bash_input("echo started; sleep 60", "call.stop")
    )
    await read_until(host.manager, started.ref, b"started\n")
    stopped = await host.coordinator.stop(SESSION_ID, started.ref)
    assert stopped.status == "cancelled"
    assert stopped.exit_code == 130
    assert stopped.message == CANCELLED_MESSAGE == "Command cancelled"
    assert isinstance(stopped.output, PipesOutput)
    assert stopped.output.stdout == "started\n"
    assert stopped.revision == 3  # starting, running, cancelled
    assert host.active_residencies == 0
    assert stopped.process is not None and process_gone(stopped.process.pid)


async def test_a_command_that_traps_term_still_times_out(host: Host) -> None:
    run = await host.coordinator.run_foreground_bash(
        bash_input(
            f'trap "" TERM; {helper("ignore_term.py")}; echo unreachable',
            "call.trap",
            timeout_ms=100,
        )
    )
    assert run.status == "timed_out"
    assert run.exit_code == 124
    assert run.signal == signal.SIGKILL  # TERM was ignored: the grace period ran out
    assert isinstance(run.output, PipesOutput)
    assert run.output.stdout == "READY\n"


async def test_a_command_that_traps_term_is_still_cancelled_by_stop(host: Host) -> None:
    started = await host.coordinator.run_background_bash(
        bash_input(helper("ignore_term.py"), "call.trap-stop", pty=True)
    )
    await read_until(host.manager, started.ref, b"READY")
    stopped = await host.coordinator.stop(SESSION_ID, started.ref)
    assert stopped.status == "cancelled"
    assert stopped.exit_code == 130
    assert stopped.signal == signal.SIGKILL
    assert stopped.process is not None and process_gone(stopped.process.pid)


#: Unsandboxed, so that the grandchild's pid is the host's (a sandbox numbers its own).
DANGER = ExecutionBoundary(profile="danger-full-access")


async def test_a_grandchild_holding_stdout_does_not_keep_the_run_alive(host: Host) -> None:
    run = await asyncio.wait_for(
        host.coordinator.run_foreground_bash(
            bash_input(helper("grandchild_holds_stdout.py"), "call.grandchild", boundary=DANGER)
        ),
        timeout=20,  # the grandchild lives until killed
    )
    assert run.status == "completed"
    assert isinstance(run.output, PipesOutput)
    match = re.search(r"grandchild=(\d+)", run.output.stdout)
    assert match, run.output.stdout
    assert process_gone(int(match.group(1)))


async def test_a_grandchild_that_left_the_group_is_killed_with_its_cgroup(host: Host) -> None:
    run = await asyncio.wait_for(
        host.coordinator.run_foreground_bash(
            bash_input(
                helper("grandchild_holds_stdout.py", "--escape"), "call.escaped", boundary=DANGER
            )
        ),
        timeout=20,
    )
    assert run.status == "completed"
    assert run.duration_ms is not None and run.duration_ms < 1000  # no output drain wait
    assert isinstance(run.output, PipesOutput)
    match = re.search(r"grandchild=(\d+)", run.output.stdout)
    assert match, run.output.stdout
    assert process_gone(int(match.group(1)))


async def test_without_cgroups_an_escaped_grandchild_is_cut_off_after_the_drain_timeout(
    tmp_path: Path,
) -> None:
    sandbox = dataclasses.replace(TEST_CONFIG.sandbox, containment="process-group")
    host = await open_host(tmp_path, config=dataclasses.replace(TEST_CONFIG, sandbox=sandbox))
    try:
        run = await asyncio.wait_for(
            host.coordinator.run_foreground_bash(
                bash_input(
                    helper("grandchild_holds_stdout.py", "--escape"),
                    "call.escaped",
                    boundary=DANGER,
                )
            ),
            timeout=20,
        )
    finally:
        await close_host(host)
    try:
        assert run.status == "completed"
        assert run.duration_ms is not None and run.duration_ms < 10_000
    finally:
        assert isinstance(run.output, PipesOutput)
        match = re.search(r"grandchild=(\d+)", run.output.stdout)
        assert match, run.output.stdout
        escaped = int(match.group(1))
        # It left the run's process group and session on purpose: without a cgroup (and
        # without a sandbox's PID namespace) the host cannot chase it.
        assert not process_gone(escaped)
        os.kill(escaped, signal.SIGKILL)


@pytest.mark.parametrize("pty", [False, True], ids=["pipes", "pty"])
async def test_exit_by_signal_is_a_failure_with_the_signal_recorded(host: Host, pty: bool) -> None:
    started = await host.coordinator.run_background_bash(
        bash_input(f"exec {helper('exit_by_signal.py', 'SIGUSR1')}", "call.signal", pty=pty)
    )
    run = await host.manager.wait_terminal(SESSION_ID, started.ref)
    assert run.status == "failed"
    assert run.signal == signal.SIGUSR1
    assert run.exit_code == 128 + signal.SIGUSR1
    assert run.message == "Command terminated by SIGUSR1"


async def test_nonzero_exit_is_failed_and_zero_is_completed(host: Host) -> None:
    failed = await host.coordinator.run_foreground_bash(bash_input("exit 3", "call.exit3"))
    assert (failed.status, failed.exit_code, failed.signal) == ("failed", 3, None)
    completed = await host.coordinator.run_foreground_bash(bash_input("true", "call.true"))
    assert (completed.status, completed.exit_code) == ("completed", 0)


async def test_cancelling_the_caller_of_a_foreground_run_cancels_the_run(host: Host) -> None:
    updates: list[str] = []
    running = asyncio.Event()

    def observe(update: ShellRunUpdate) -> None:
        updates.append(update.record.status)
        if update.record.status == "running":
            running.set()

    host.manager.add_update_listener(observe)
    caller = asyncio.create_task(
        host.coordinator.run_foreground_bash(bash_input("sleep 60", "call.abandoned"))
    )
    await running.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    page = await host.coordinator.list_runs(SESSION_ID)
    assert [run.status for run in page.runs] == ["cancelled"]
    assert page.runs[0].exit_code == 130


async def test_stop_of_an_ended_run_returns_it_unchanged(host: Host) -> None:
    done = await host.coordinator.run_foreground_bash(bash_input("echo hi", "call.done"))
    again = await host.coordinator.stop(SESSION_ID, done.ref)
    assert again == done


async def test_terminal_fields_never_change_and_revisions_grow_by_one(host: Host) -> None:
    revisions: list[tuple[int, str]] = []
    host.manager.add_update_listener(
        lambda update: (
            revisions.append((update.record.revision, update.record.status))
            if update.kind == "changed"
            else None
        )
    )
    done = await host.coordinator.run_foreground_bash(bash_input("true", "call.rev"))
    assert revisions == [(1, "starting"), (2, "running"), (3, "completed")]
    # Stopping and querying later do not touch a terminal record.
    await host.coordinator.stop(SESSION_ID, done.ref)
    assert await host.coordinator.get(SESSION_ID, done.ref) == done
    with pytest.raises(InternalFailureError, match="terminal runs never change"):
        done.finished(status="cancelled", now=0, output=done.output)
    with pytest.raises(InternalFailureError, match="cannot start from status completed"):
        done.started(process=ProcessIdentity(1, 1, "boot"), now=0)
