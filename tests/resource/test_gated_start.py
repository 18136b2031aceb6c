"""A pipes run's process starts while its ``starting`` record commits, gated: nothing of the
command runs before the record is durable (core/live.py, ``LiveRun.launch``)."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from maka_runtime.common.sqlite import SqliteWorker
from maka_runtime.resource.core import PersistenceFailedError, PipesOutput, ShellRunRecord
from maka_runtime.resource.core.process import gated, leader, pipes
from maka_runtime.resource.core.process.child import ProcessHandle
from maka_runtime.resource.core.process.leader import Leader
from maka_runtime.resource.core.process.procfs import environ_has, iter_pids
from maka_runtime.resource.core.sandbox.cgroups import RunCgroup
from maka_runtime.resource.core.sandbox.launch import LaunchPlan, Sandbox
from tests.resource.conftest import SESSION_ID, Host, bash_input, process_gone

Insert = Callable[[ShellRunRecord], Awaitable[ShellRunRecord]]
#: Loop steps the held insert lets pass for the leader's spawn (it takes two).
_SPAWN_STEPS_MAX = 50


def _processes_of(record: ShellRunRecord) -> list[int]:
    """The live processes started for *record*: they carry its run marker, or are in its
    cgroup (a leader the native spawner holds at its gate has not executed yet, so its
    environment is still this process's)."""
    entry = f"MAKA_SHELL_RUN_ID={record.id}".encode()
    cgroup = f"/run-{record.id}\n".encode()
    return [
        pid
        for pid in iter_pids()
        if (environ_has(pid, entry) or _cgroup_of(pid).endswith(cgroup)) and not process_gone(pid)
    ]


def _cgroup_of(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cgroup").read_bytes()
    except OSError:
        return b""


async def _at_its_gate(
    host: Host, held: HeldInsert, scratch_dir: Path, then: str = ""
) -> tuple[Path, asyncio.Task[ShellRunRecord], list[int]]:
    """A foreground run that creates a marker file if anything of its command runs (then runs
    *then*), started and held while its record commits: the marker, the run's task and the
    leader's PID (exactly one: it started while its record was being committed)."""
    marker = scratch_dir / "ran"
    starting = asyncio.create_task(
        host.coordinator.run_foreground_bash(bash_input(f"touch {marker}{then}", "call.1"))
    )
    spawned = await held.entered
    assert len(spawned) == 1
    return marker, starting, spawned


class HeldInsert:
    """The real store's insert, held until the test says how it ends."""

    def __init__(self, real: Insert) -> None:
        self.real = real
        self.entered: asyncio.Future[list[int]] = asyncio.get_running_loop().create_future()
        self.outcome: asyncio.Future[BaseException | None] = (
            asyncio.get_running_loop().create_future()
        )

    async def __call__(self, record: ShellRunRecord) -> ShellRunRecord:
        # The write goes to the store first; the leader is spawned a few loop steps later.
        spawned: list[int] = []
        for _ in range(_SPAWN_STEPS_MAX):
            spawned = _processes_of(record)
            if spawned:
                break
            await asyncio.sleep(0)
        # A leader created off the loop (the native gate) comes in its own time.
        deadline = time.monotonic() + 10
        while not spawned and time.monotonic() < deadline:
            await asyncio.sleep(0.001)
            spawned = _processes_of(record)
        self.entered.set_result(spawned)
        refused = await self.outcome
        if refused is not None:
            raise refused
        return await self.real(record)


@pytest.fixture
async def held(host: Host, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[HeldInsert]:
    hold = HeldInsert(host.store.insert)
    monkeypatch.setattr(host.store, "insert", hold)
    try:
        yield hold
    finally:
        if not hold.outcome.done():  # a test that failed early: let its run end
            hold.outcome.set_result(PersistenceFailedError("the test ended"))


async def test_a_refused_record_ends_the_process_at_its_gate(
    host: Host, held: HeldInsert, scratch_dir: Path
) -> None:
    marker, starting, spawned = await _at_its_gate(host, held, scratch_dir)
    held.outcome.set_result(PersistenceFailedError("the disk is full"))
    with pytest.raises(PersistenceFailedError):
        await starting
    assert not marker.exists()  # its gate never opened: nothing of the command ran
    assert process_gone(spawned[0])
    assert host.manager.live_counts() == (0, 0)
    assert (await host.coordinator.list_runs(SESSION_ID)).runs == ()  # nothing was recorded


async def test_a_run_stopped_while_its_record_commits_runs_nothing(
    host: Host, held: HeldInsert, scratch_dir: Path
) -> None:
    marker, starting, spawned = await _at_its_gate(host, held, scratch_dir)
    host.manager.begin_drain()  # reaches the run before it has a record
    held.outcome.set_result(None)  # the record commits
    stopped = await starting
    assert stopped.status == "cancelled"
    assert stopped.revision == 2  # starting, cancelled: it never ran
    assert not marker.exists()
    assert spawned and all(process_gone(pid) for pid in spawned)


async def test_a_committed_record_opens_the_gate(
    host: Host, held: HeldInsert, scratch_dir: Path
) -> None:
    marker, starting, _ = await _at_its_gate(host, held, scratch_dir, then=" && echo ok")
    assert not marker.exists()
    held.outcome.set_result(None)
    final = await starting
    assert final.status == "completed" and final.exit_code == 0
    assert isinstance(final.output, PipesOutput) and final.output.stdout == "ok\n"
    assert marker.exists()


async def test_a_gated_process_that_cannot_be_ended_does_not_keep_its_run_live(
    host: Host, held: HeldInsert, scratch_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def failing_kill(self: ProcessHandle, within: float) -> None:
        raise OSError("cgroup.kill: device busy")

    monkeypatch.setattr(ProcessHandle, "kill", failing_kill)
    marker, starting, spawned = await _at_its_gate(host, held, scratch_dir)
    held.outcome.set_result(PersistenceFailedError("the disk is full"))
    with pytest.raises(PersistenceFailedError):  # the store's refusal, not the kill's failure
        await starting
    assert host.manager.live_counts() == (0, 0)  # no slot held, nothing for a drain to wait on
    assert not marker.exists()  # its gate closed: nothing of the command ran
    assert spawned and all(process_gone(pid) for pid in spawned)  # it ended there, and was reaped


async def test_the_record_write_reaches_the_store_before_the_spawn(
    host: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ``starting`` record commits during the leader's fork and exec, not after them."""
    applied = threading.Event()
    real_transaction = SqliteWorker._transaction

    def transaction(self: SqliteWorker, *args: Any) -> Any:
        applied.set()  # a write transaction has begun on the store's thread
        return real_transaction(self, *args)

    real_start = leader.start_leader
    at_spawn: list[bool] = []

    def start_leader(*args: Any, **kwargs: Any) -> Leader:
        # Blocks the event loop, as the spawn does: only the store's own thread can set it.
        at_spawn.append(applied.wait(timeout=10))
        return real_start(*args, **kwargs)

    real_clone = leader.clone_into

    def clone_into(*args: Any, **kwargs: Any) -> Any:
        # A leader the native spawner gates is created on a thread of its own (the loop
        # goes on); its record's write has reached the store all the same.
        at_spawn.append(applied.wait(timeout=10))
        return real_clone(*args, **kwargs)

    monkeypatch.setattr(SqliteWorker, "_transaction", transaction)
    monkeypatch.setattr(pipes, "start_leader", start_leader)
    monkeypatch.setattr(gated, "clone_into", clone_into)
    final = await host.coordinator.run_foreground_bash(bash_input("true", "call.1"))
    assert final.status == "completed"
    assert at_spawn == [True]


async def _exit_of(pid: int) -> asyncio.Future[None]:
    """Done once *pid* has exited (its pidfd becomes readable then)."""
    loop = asyncio.get_running_loop()
    exited: asyncio.Future[None] = loop.create_future()
    pidfd = os.pidfd_open(pid)

    def on_exit() -> None:
        loop.remove_reader(pidfd)
        os.close(pidfd)
        exited.set_result(None)

    loop.add_reader(pidfd, on_exit)
    return exited


#: What a run whose cgroup vanished says, by how its leader enters the cgroup.
_REFUSED = {"join": "could not join the run's cgroup", "clone3": "No such file or directory"}


@pytest.fixture(params=sorted(_REFUSED))
def vanished_cgroup(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, request: pytest.FixtureRequest
) -> str:
    """Every run's cgroup is a directory that is gone by the time its leader enters it (joins
    it, or is created inside it); returns what the run's record says of that."""
    real_prepare = Sandbox.prepare
    gone = tmp_path / "run-gone"
    entry = request.param

    def prepare(self: Sandbox, *args: Any, **kwargs: Any) -> LaunchPlan:
        plan = real_prepare(self, *args, **kwargs)
        return dataclasses.replace(plan, cgroup=RunCgroup(gone), clone_into=entry == "clone3")

    monkeypatch.setattr(Sandbox, "prepare", prepare)
    return _REFUSED[entry]


async def test_a_leader_refused_by_its_cgroup_is_recorded_as_never_started(
    host: Host, vanished_cgroup: str, scratch_dir: Path
) -> None:
    marker = scratch_dir / "ran"
    final = await host.coordinator.run_foreground_bash(bash_input(f"touch {marker}", "call.1"))
    assert not marker.exists()
    # Not "exited with code 125": that code was the leader's, and the command never ran.
    assert final.status == "failed" and final.exit_code is None
    assert (final.message or "").startswith("Command could not start: ")
    assert vanished_cgroup in (final.message or "")
    stored = await host.store.get(final.ref)
    assert stored is not None and stored.status == "failed" and stored.exit_code is None


async def test_a_command_that_exits_125_itself_keeps_its_exit_code(host: Host) -> None:
    final = await host.coordinator.run_foreground_bash(bash_input("exit 125", "call.1"))
    assert final.exit_code == 125 and "could not start" not in (final.message or "")


async def _final(host: Host, started: ShellRunRecord) -> ShellRunRecord:
    """The run's terminal record, as the session's watch delivers it."""
    if not started.active:
        return started
    async for record in host.coordinator.watch(SESSION_ID):
        if record.ref == started.ref and not record.active:
            return record
    raise AssertionError("the watch ended before the run did")


async def test_a_pty_leader_refused_by_its_cgroup_is_recorded_as_never_started(
    host: Host, vanished_cgroup: str, scratch_dir: Path
) -> None:
    marker = scratch_dir / "ran"
    started = await host.coordinator.run_background_bash(
        bash_input(f"touch {marker}", "call.pty", pty=True)
    )
    final = await asyncio.wait_for(_final(host, started), timeout=30)
    assert not marker.exists()
    assert final.status == "failed" and final.exit_code is None
    assert vanished_cgroup in (final.message or "")


async def test_a_pty_command_gets_its_terminal_past_the_gate_and_keeps_its_exit_code(
    host: Host,
) -> None:
    # Past its gate the leader's stdin, stdout and stderr are the terminal, and it is the
    # controlling one: /dev/tty opens, and stdin answers isatty.
    command = "test -t 0 && test -t 1 && test -t 2 && : </dev/tty && echo TERMINAL; exit 125"
    started = await host.coordinator.run_background_bash(bash_input(command, "call.pty", pty=True))
    final = await asyncio.wait_for(_final(host, started), timeout=30)
    assert final.exit_code == 125 and "could not start" not in (final.message or "")
    assert "TERMINAL" in str(final.output)


async def test_a_leader_killed_before_its_gate_opened_is_recorded_as_never_started(
    host: Host, held: HeldInsert, scratch_dir: Path
) -> None:
    marker, starting, spawned = await _at_its_gate(host, held, scratch_dir)
    exited = await _exit_of(spawned[0])
    os.kill(spawned[0], signal.SIGKILL)  # killed from outside while waiting at its gate
    await asyncio.wait_for(exited, timeout=10)
    held.outcome.set_result(None)
    final = await starting
    assert not marker.exists()
    assert final.status == "failed" and final.exit_code is None
    assert "killed by signal 9" in (final.message or "")


async def test_a_leader_created_in_its_cgroup_waits_at_its_gate_with_no_shell(
    host: Host, held: HeldInsert, scratch_dir: Path, cgroup: RunCgroup
) -> None:
    del cgroup  # this host creates leaders inside their cgroups (else the prologue gates them)
    marker, starting, spawned = await _at_its_gate(host, held, scratch_dir)
    [pid] = spawned
    # At its gate it is still the spawner's child (this interpreter), not a /bin/sh prologue;
    # past it, it executes bubblewrap directly.
    assert _program(pid) == _program("self", sys.executable)
    assert not marker.exists()
    held.outcome.set_result(None)
    final = await starting
    assert final.status == "completed" and marker.exists()
    assert final.process is not None and final.process.pid == pid


def _program(pid: int | str, path: str = "") -> str:
    """The program *pid* runs (``self`` with *path*: that file's real path)."""
    return os.path.realpath(path or f"/proc/{pid}/exe")
