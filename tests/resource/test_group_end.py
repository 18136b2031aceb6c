"""Without a cgroup, a run's end waits for its process group (process/child.py,
``_group_ended``): on pidfds of the group's running members, woken by their exits, never by
polling. Real processes: a session leader that exits at once and leaves members behind, each
blocked on a pipe the test closes when it chooses."""

from __future__ import annotations

import asyncio
import os
import select
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager, suppress

import pytest

from maka_runtime.resource.core.process import child
from maka_runtime.resource.core.process import procfs as _procfs


@contextmanager
def orphaned_group(members: int) -> Iterator[tuple[int, list[int]]]:
    """A process group whose leader has exited and been reaped, with *members* processes
    left in it, each reading its own pipe until the test closes the write end: (pgid, write
    ends)."""
    pipes = [os.pipe() for _ in range(members)]
    script = " ".join(f"(read x <&{r}) &" for r, _ in pipes) + " exit 0"
    leader = subprocess.Popen(
        ["/bin/bash", "-c", script], start_new_session=True, pass_fds=[r for r, _ in pipes]
    )
    for r, _ in pipes:
        os.close(r)
    leader.wait()  # reaped: only the members are left in the group
    writers = [w for _, w in pipes]
    try:
        yield leader.pid, writers
    finally:
        for w in writers:
            with suppress(OSError):
                os.close(w)
        with suppress(ProcessLookupError):
            os.killpg(leader.pid, signal.SIGKILL)


def gone_group() -> int:
    """The id of a process group whose only member has exited and been reaped."""
    leader = subprocess.Popen(["/bin/true"], start_new_session=True)
    leader.wait()
    return leader.pid


def members(pgid: int) -> list[int]:
    stats = (_procfs.read_stat(pid) for pid in _procfs.iter_pids())
    return [s.pid for s in stats if s is not None and s.pgid == pgid and not s.zombie]


def count_scans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the looks at ``/proc`` that ``_group_ended`` takes (one listing each)."""
    scans: list[int] = []
    real = _procfs.iter_pids

    def counting() -> Iterator[int]:
        scans.append(1)
        return real()

    monkeypatch.setattr(_procfs, "iter_pids", counting)  # the module child.py reads
    return scans


class TimerFreeAsyncio:
    """``asyncio`` as ``child.py`` sees it in a test: every name is asyncio's, but each
    ``sleep`` the module asks for is recorded, so a wait that polls shows up as its timers."""

    def __init__(self) -> None:
        self.sleeps: list[float] = []

    def __getattr__(self, name: str) -> object:
        return getattr(asyncio, name)

    def sleep(self, delay: float, *args: object) -> object:
        self.sleeps.append(delay)
        return asyncio.sleep(delay, *args)


def wait_exited(pid: int) -> None:
    """Block until process *pid* has exited (its pidfd is readable)."""
    pidfd = os.pidfd_open(pid)
    try:
        assert select.select([pidfd], [], [], 10)[0], f"{pid} did not exit"
    finally:
        os.close(pidfd)


async def test_the_wait_ends_on_the_last_members_exit_without_polling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with orphaned_group(2) as (pgid, writers):
        first, second = members(pgid)  # forked before the leader exited
        scans = count_scans(monkeypatch)
        timers = TimerFreeAsyncio()
        monkeypatch.setattr(child, "asyncio", timers)
        waiting = asyncio.ensure_future(child._group_ended(pgid, 30.0))
        for _ in range(3):
            await asyncio.sleep(0)  # the wait has looked at the group and is waiting
        # Both members run: a wait that polled would have asked for a timer by now.
        assert (len(scans), timers.sleeps, waiting.done()) == (1, [], False)
        os.close(writers.pop(0))  # the first member reads its end of file and exits
        await asyncio.get_running_loop().run_in_executor(None, wait_exited, first)
        for _ in range(3):
            await asyncio.sleep(0)  # the loop sees the first pidfd readable
        assert len(scans) == 1 and not waiting.done()  # the second still runs
        os.close(writers.pop(0))
        await asyncio.get_running_loop().run_in_executor(None, wait_exited, second)
        assert await asyncio.wait_for(waiting, 10) is True
        # Woken by the exits, never by a timer: one look that found both members, and one
        # after they had both exited that found none.
        assert len(scans) == 2 and timers.sleeps == []


async def test_a_member_that_never_exits_ends_the_wait_at_its_deadline() -> None:
    with orphaned_group(1) as (pgid, _writers):
        (member,) = members(pgid)
        assert await child._group_ended(pgid, 0.2) is False
        assert members(pgid) == [member]  # waited for, never signalled


async def test_a_group_that_is_gone_ends_the_wait_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pgid = gone_group()
    scans = count_scans(monkeypatch)
    assert await child._group_ended(pgid, 5.0) is True
    assert scans == []
